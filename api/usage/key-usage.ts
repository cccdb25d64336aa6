import type { Middleware } from 'koa';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { rateLimited, type Policy } from '../../shared/limits/limiter.js';
import { keyUsageView } from '../../shared/usage/key-usage-view.js';
import { authenticateAndCount, bearerCredential } from '../http/credential.js';

const MINUTE = 60_000;
const perIp: Policy = {
  name: 'key-usage-ip',
  limit: 10,
  windowMs: MINUTE,
  refuse: rateLimited('too many usage lookups from this address'),
};
const perKey: Policy = {
  name: 'key-usage-key',
  limit: 30,
  windowMs: MINUTE,
  refuse: rateLimited('too many usage lookups for this key'),
};

/**
 * GET /v1/key/usage: the key is its own credential, whatever its usage-access switch. The source
 * address is limited before the key is even looked up, so the endpoint cannot be used to test keys.
 */
export function keyUsage(services: GatewayServices): Middleware {
  return async (ctx) => {
    const credential = bearerCredential(ctx);
    await services.limiter.consume([{ policy: perIp, subject: credential.ip }]);
    const key = await authenticateAndCount(ctx, services, credential);
    await services.limiter.consume([{ policy: perKey, subject: key.id }]);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await keyUsageView(services, key);
  };
}
