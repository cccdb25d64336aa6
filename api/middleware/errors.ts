import type { Middleware } from 'koa';
import { GatewayError, internalError, isGatewayError, notFound } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import { rendererFor } from '../../shared/protocols/error-bodies.js';

/** Renders every failure in the caller's protocol; an unexpected error is logged and answers a bare 500. */
export function errorBoundary(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined && ctx.respond !== false)
        throw notFound(`no route for ${ctx.method} ${ctx.path}`);
    } catch (caught) {
      const err = toGatewayError(caught);
      if (err.status >= 500 && !isGatewayError(caught))
        log.error({ err: caught, requestId: ctx.state.requestId }, 'unhandled error');
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
  // Koa's own errors (e.g. a malformed URL) carry an expose-safe status.
  const e = err as { status?: number; expose?: boolean; message?: string };
  if (e && typeof e.status === 'number' && e.status < 500 && e.expose)
    return new GatewayError('invalid_request', e.status, e.message ?? 'bad request');
  return internalError();
}
