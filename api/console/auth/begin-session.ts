import type { Context } from 'koa';
import { issueBearer } from '../../../shared/console/bearer-tokens.js';
import { startSession } from '../../../shared/console/sessions.js';
import type { User } from '../../../shared/db/schema.js';
import { publicUser } from '../../../shared/db/users.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { setSessionCookie } from '../cookie.js';
import { sendData } from '../envelope.js';
import { signInCredential } from '../sign-in-credential.js';

/**
 * Starts a session for a user who passed every sign-in step and answers it with the credential
 * `signInCredential` picks: `{token, expires_at, user}` (the `gws_` session token, or a `gwb_`
 * bearer token and its own expiry), or `{expires_at, user}` beside the cookie for a browser.
 */
export async function beginSession(services: GatewayServices, ctx: Context, user: User, status = 200): Promise<void> {
  const credential = signInCredential(ctx);
  const session = await openSession(services, ctx, user, { cookie: credential !== 'bearer' });
  const expiresAt = session.expiresAt.toISOString();
  if (credential === 'cookie') return sendData(ctx, { expires_at: expiresAt, user: publicUser(user) }, status);
  if (credential === 'session_token')
    return sendData(ctx, { token: session.token, expires_at: expiresAt, user: publicUser(user) }, status);
  const bearer = issueBearer(session, services.linkSecret, services.clock.now());
  sendData(ctx, { token: bearer.token, expires_at: bearer.expiresAt.toISOString(), user: publicUser(user) }, status);
}

/** The session, and its cookie unless `cookie: false`; no body (the provider callback redirects). */
export async function openSession(
  services: GatewayServices,
  ctx: Context,
  user: User,
  options: { cookie: boolean } = { cookie: true },
) {
  const session = await startSession(services.db, user.id, services.config.console.sessionTtlHours, {
    ip: ctx.ip || null,
    userAgent: ctx.get('user-agent') || null,
  });
  if (options.cookie) setSessionCookie(services, ctx, session.token, session.expiresAt);
  ctx.set('Cache-Control', 'no-store');
  return session;
}
