import type { Context } from 'koa';
import { authenticate, type Credential } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';

/** `Authorization: Bearer <key>` (chat-completions-style and video routes). */
export function bearerCredential(ctx: Context): Credential {
  const header = ctx.get('authorization');
  const secret = header.toLowerCase().startsWith('bearer ') ? header.slice(7).trim() : undefined;
  return { secret: secret || undefined, ip: ctx.ip };
}

/** Steps 1-3 for a request; the key is kept on the context for the rate-limit headers. */
export async function authenticateRequest(ctx: Context, services: GatewayServices, credential = bearerCredential(ctx)): Promise<ApiKeyContext> {
  const key = await authenticate(services, credential);
  ctx.state.key = key;
  return key;
}
