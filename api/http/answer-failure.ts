import { isGatewayError } from '../../shared/errors.js';
import { groupOf } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { RENDERERS, type ErrorProtocol } from '../../shared/protocols/error-bodies.js';
import { noteOf } from '../../shared/telemetry/request-note.js';
import { toGatewayError } from '../middleware/errors.js';
import { sendJson, type Exchange } from './exchange.js';

/**
 * What Koa's error boundary and rate-limit header middleware do, for a route outside Koa: the
 * failure in the caller's protocol, its Retry-After, and where an authenticated caller stands (read
 * without consuming anything) unless the refusal already says so.
 */
export async function answerFailure(
  services: GatewayServices,
  ex: Exchange,
  key: ApiKeyContext | undefined,
  caught: unknown,
  protocol: ErrorProtocol = 'openai',
): Promise<void> {
  const err = toGatewayError(caught);
  if (err.code === 'internal_error' && !isGatewayError(caught))
    services.log.error({ err: caught, requestId: ex.requestId }, 'unhandled error');
  const note = noteOf(ex.req);
  if (note) note.errorCode = err.code;
  const { res } = ex;
  if (res.headersSent) {
    // A relay that already started ends its own stream; anything else cannot be answered any more.
    if (!res.writableEnded) res.destroy();
    return;
  }
  if (res.destroyed) return;
  const headers: Record<string, string> = {};
  if (
    key &&
    !err.headers &&
    !res.hasHeader('X-RateLimit-Limit-Requests') &&
    !res.hasHeader('X-RateLimit-Limit-Tokens')
  ) {
    Object.assign(
      headers,
      await services.admissions.peekHeaders(key, groupOf(services, key), services.clock.now()).catch(() => ({})),
    );
  }
  if (err.headers) Object.assign(headers, err.headers);
  if (err.retryAfter !== undefined) headers['Retry-After'] = String(err.retryAfter);
  if (res.headersSent || res.destroyed) return;
  sendJson(res, err.status, JSON.stringify(RENDERERS[protocol](err, ex.requestId)), headers);
}
