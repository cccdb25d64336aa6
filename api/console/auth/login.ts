import type { Middleware } from 'koa';
import { z } from 'zod';
import { checkPassword } from '../../../shared/console/login.js';
import { startSession } from '../../../shared/console/sessions.js';
import { publicUser } from '../../../shared/db/users.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { readConsoleBody } from '../body.js';
import { setSessionCookie } from '../cookie.js';
import { sendData } from '../envelope.js';

// Bounded so that nobody makes argon2 chew on a megabyte.
export const loginSchema = z.strictObject({
  identifier: z.string().min(1).max(320),
  password: z.string().min(1).max(1024),
});

/** POST /api/v1/auth/login: a session as a cookie and, for non-browser clients, the same token in the body. */
export function login(services: GatewayServices): Middleware {
  return async (ctx) => {
    const body = await readConsoleBody(ctx, loginSchema);
    const user = await checkPassword(services.db, body);
    // Account lock and two-step verification (a later issue) go here, before any session exists.
    const session = await startSession(services.db, user.id, services.config.console.sessionTtlHours, {
      ip: ctx.ip || null,
      userAgent: ctx.get('user-agent') || null,
    });
    setSessionCookie(ctx, session.token, session.expiresAt);
    ctx.set('Cache-Control', 'no-store');
    sendData(ctx, { token: session.token, expires_at: session.expiresAt.toISOString(), user: publicUser(user) });
  };
}
