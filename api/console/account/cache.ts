import type { Middleware } from 'koa';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';

/** DELETE /api/v1/cache: every response-cache entry of the signed-in account, removed at once (`{purged}` counts them). */
export function purgeCache(services: GatewayServices): Middleware {
  return async (ctx) => {
    const purged = await services.responseCache.purgeAccount(signedIn(ctx).user.id);
    sendData(ctx, { purged });
  };
}
