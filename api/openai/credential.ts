import type { Context } from 'koa';
import type { Credential } from '../../shared/gateway/pipeline.js';

/** `Authorization: Bearer <key>` (chat-completions-style and video routes). */
export function bearerCredential(ctx: Context): Credential {
  const header = ctx.get('authorization');
  const secret = header.toLowerCase().startsWith('bearer ') ? header.slice(7).trim() : undefined;
  return { secret: secret || undefined, ip: ctx.ip };
}
