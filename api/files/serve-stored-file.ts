import type { GatewayServices } from '../../shared/gateway/services.js';
import type { Middleware } from 'koa';
import { notFound } from '../../shared/errors.js';
import { serveObject, verifyLink } from '../../shared/storage/index.js';
import { authenticate } from '../../shared/gateway/pipeline.js';
import { bearerSecret } from '../http/credential.js';

/**
 * GET /v1/files/{token}: a stored result behind a short-lived, owner-scoped signed link (the
 * bucket itself is never public). Range requests are answered, so players can seek.
 */
export function serveStoredFile(services: GatewayServices): Middleware {
  return async (ctx) => {
    const claims = verifyLink(String(ctx.params.token), services.linkSecret, services.clock.now());
    if (!claims) throw notFound('this link is invalid or has expired');
    // A link is the account's: one presented with another account's key answers as if it did not exist.
    const secret = bearerSecret(ctx.get('authorization') || undefined);
    if (
      secret &&
      (await authenticate(services, { secret, ip: ctx.ip }).catch(() => undefined))?.userId !== claims.userId
    )
      throw notFound('this link is invalid or has expired');
    const method = ctx.method === 'HEAD' ? 'HEAD' : 'GET';
    const answer = await serveObject(services.storage, claims, ctx.get('range') || undefined, method);
    if (answer.status === 404) throw notFound('the file no longer exists');
    ctx.status = answer.status;
    ctx.set(answer.headers);
    ctx.body = answer.body ?? null;
    if (answer.status === 416 || method === 'HEAD') ctx.body = null;
  };
}
