import type { Middleware } from 'koa';
import {
  GatewayError,
  internalError,
  isBackingServiceDown,
  isGatewayError,
  notFound,
  serviceUnavailable,
} from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import { rendererFor } from '../../shared/protocols/error-bodies.js';
import { noteOf } from '../../shared/telemetry/request-note.js';

/** Renders every failure in the caller's protocol; an unexpected error is logged and answers a bare 500. */
export function errorBoundary(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined && ctx.respond !== false)
        throw notFound(`no route for ${ctx.method} ${ctx.path}`);
    } catch (caught) {
      const err = toGatewayError(caught);
      if (err.code === 'internal_error' && !isGatewayError(caught))
        log.error({ err: caught, requestId: ctx.state.requestId }, 'unhandled error');
      const note = noteOf(ctx.req);
      if (note) note.errorCode = err.code;
      if (ctx.headerSent || !ctx.writable) return;
      ctx.status = err.status;
      if (err.retryAfter !== undefined) ctx.set('Retry-After', String(err.retryAfter));
      if (err.headers) ctx.set(err.headers);
      ctx.body = rendererFor(ctx.path)(err, ctx.state.requestId as string);
    }
  };
}

export function toGatewayError(err: unknown): GatewayError {
  if (isGatewayError(err)) return err;
  // Postgres or Redis out of reach (an outage, a failover): retry shortly, not a bug.
  if (isBackingServiceDown(err)) return serviceUnavailable();
  // Koa's own errors (e.g. a malformed URL) carry an expose-safe status.
  const e = err as { status?: number; expose?: boolean; message?: string };
  if (e && typeof e.status === 'number' && e.status < 500 && e.expose)
    return new GatewayError('invalid_request', e.status, e.message ?? 'bad request');
  return internalError();
}
