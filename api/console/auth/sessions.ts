import type { Middleware } from 'koa';
import { z } from 'zod';
import { listLiveSessions, revokeOwnSession } from '../../../shared/db/sessions.js';
import { notFound } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { UUID_PATTERN } from '../../../shared/ids.js';
import { readConsoleBody } from '../body.js';
import { clearSessionCookie } from '../cookie.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';

/** GET /api/v1/auth/sessions: the user's live sessions (where and when they began; `current` marks this one). */
export function listSessions(services: GatewayServices): Middleware {
  return async (ctx) => {
    const { user, session } = signedIn(ctx);
    const rows = await listLiveSessions(services.db, user.id);
    sendData(
      ctx,
      rows.map((s) => ({
        id: s.id,
        current: s.id === session.sessionId,
        created_at: s.created_at.toISOString(),
        expires_at: s.expires_at.toISOString(),
        ip: s.ip,
        user_agent: s.user_agent,
      })),
    );
  };
}

/** POST /api/v1/auth/sessions/{id}/revoke → 204; another user's or an ended session → 404. */
export function revokeSessionRoute(services: GatewayServices): Middleware {
  return async (ctx) => {
    const id = String(ctx.params.id);
    if (!UUID_PATTERN.test(id)) throw notFound('no such session');
    await readConsoleBody(ctx, z.strictObject({}));
    const { user, session } = signedIn(ctx);
    if (!(await revokeOwnSession(services.db, user.id, id))) throw notFound('no such session');
    if (id === session.sessionId) clearSessionCookie(services, ctx);
    ctx.status = 204;
  };
}
