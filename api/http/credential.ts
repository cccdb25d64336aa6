import type { Context } from 'koa';
import { authenticate, countRequest, type Credential } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';

/** The key in `Authorization: Bearer <key>`, if any. */
export function bearerSecret(header: string | undefined): string | undefined {
  const secret =
    header !== undefined && header.length > 7 && header.slice(0, 7).toLowerCase() === 'bearer '
      ? header.slice(7).trim()
      : undefined;
  return secret || undefined;
}

/** `Authorization: Bearer <key>` (chat-completions-style and video routes). */
export function bearerCredential(ctx: Context): Credential {
  return { secret: bearerSecret(ctx.get('authorization') || undefined), ip: ctx.ip };
}

/** Steps 1-3 for a request; the key is kept on the context for the rate-limit headers. */
export async function authenticateRequest(
  ctx: Context,
  services: GatewayServices,
  credential = bearerCredential(ctx),
): Promise<ApiKeyContext> {
  const key = await authenticate(services, credential);
  ctx.state.key = key;
  return key;
}

/**
 * Steps 1-3, then the request counted against the key's rate limits (see countRequest): every
 * authenticated data-plane call that does not admit a generation of its own.
 */
export async function authenticateAndCount(
  ctx: Context,
  services: GatewayServices,
  credential = bearerCredential(ctx),
): Promise<ApiKeyContext> {
  const key = await authenticateRequest(ctx, services, credential);
  ctx.set(await countRequest(services, key, String(ctx.state.requestId)));
  return key;
}
