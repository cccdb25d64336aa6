import type { Context } from 'koa';
import { startSession } from '../../../shared/console/sessions.js';
import type { User } from '../../../shared/db/schema.js';
import { publicUser } from '../../../shared/db/users.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { setSessionCookie } from '../cookie.js';
import { sendData } from '../envelope.js';

/** Starts a session for a user who passed every sign-in step: the cookie, and `{token, expires_at, user}` for non-browser clients. */
export async function beginSession(services: GatewayServices, ctx: Context, user: User, status = 200): Promise<void> {
  const session = await openSession(services, ctx, user);
  sendData(ctx, { token: session.token, expires_at: session.expiresAt.toISOString(), user: publicUser(user) }, status);
}

/** The session and its cookie, without a body (for the provider callback, which redirects). */
export async function openSession(services: GatewayServices, ctx: Context, user: User) {
  const session = await startSession(services.db, user.id, services.config.console.sessionTtlHours, {
    ip: ctx.ip || null,
    userAgent: ctx.get('user-agent') || null,
  });
  setSessionCookie(services, ctx, session.token, session.expiresAt);
  ctx.set('Cache-Control', 'no-store');
  return session;
}
