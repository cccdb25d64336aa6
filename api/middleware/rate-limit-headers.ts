import type { Middleware } from 'koa';
import { isGatewayError } from '../../shared/errors.js';
import { groupOf } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';

/**
 * Every gateway response to an authenticated key carries the rate-limit headers of its tightest
 * layer: an admitted call sets them itself; anything else (a model list, an estimate, a call
 * refused before admission) gets the current state, read without consuming anything.
 */
export function rateLimitHeaders(services: GatewayServices): Middleware {
  return async (ctx, next) => {
    let failure: unknown;
    try {
      await next();
    } catch (err) {
      failure = err;
    }
    const key = ctx.state.key as ApiKeyContext | undefined;
    const refusal = isGatewayError(failure) && failure.headers !== undefined;
    if (
      key &&
      !refusal &&
      !ctx.headerSent &&
      !ctx.response.get('X-RateLimit-Limit-Requests') &&
      !ctx.response.get('X-RateLimit-Limit-Tokens')
    ) {
      const headers = await services.admissions
        .peekHeaders(key, groupOf(services, key), services.clock.now())
        .catch(() => ({}));
      if (!ctx.headerSent) ctx.set(headers);
    }
    if (failure !== undefined) throw failure;
  };
}
