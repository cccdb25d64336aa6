import type { Context } from 'koa';
import type { CompatibilityProfile } from '../../shared/db/schema.js';
import type { GatewayError } from '../../shared/errors.js';
import { toGatewayError } from '../middleware/errors.js';

/**
 * The private protocol's answers: `{code: 0, message: "success", data}`, errors `{code, message,
 * request_id, error_code}` with `code` the HTTP-like status. `standard_v1` keys get
 * `application/json`; `legacy_v1` keys (migrated from the older system) the same bytes as
 * `text/plain; charset=utf-8`, as that system sent them.
 */
export function sendEnvelope(
  ctx: Context,
  profile: CompatibilityProfile | undefined,
  status: number,
  body: unknown,
): void {
  const text = body === '' ? '' : JSON.stringify(body);
  ctx.status = status;
  ctx.type = profile === 'legacy_v1' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
  ctx.body = text;
}

export function sendSuccess(ctx: Context, profile: CompatibilityProfile, data: unknown): void {
  sendEnvelope(ctx, profile, 200, { code: 0, message: 'success', data });
}

export function privateError(err: GatewayError, requestId: string) {
  return { code: err.status, message: err.message, request_id: requestId, error_code: err.code };
}

export function sendFailure(
  ctx: Context,
  profile: CompatibilityProfile | undefined,
  caught: unknown,
  log: (err: unknown) => void,
): void {
  const err = toGatewayError(caught);
  if (err.code === 'internal_error') log(caught);
  if (err.retryAfter !== undefined) ctx.set('Retry-After', String(err.retryAfter));
  if (err.headers) ctx.set(err.headers);
  sendEnvelope(ctx, profile, err.status, privateError(err, ctx.state.requestId as string));
}

/** getResult's miss: `standard_v1` a JSON body with code -1; `legacy_v1` an empty body, as the older system answered. */
export function sendMiss(ctx: Context, profile: CompatibilityProfile): void {
  if (profile === 'legacy_v1') sendEnvelope(ctx, profile, 200, '');
  else
    sendEnvelope(ctx, profile, 404, { code: -1, message: 'task not found', request_id: ctx.state.requestId as string });
}
