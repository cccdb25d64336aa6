import type { Context, Middleware } from 'koa';
import { BEARER_PREFIX } from '../../shared/console/bearer-tokens.js';
import { findSession, findSessionByBearer, isApiKeySecret, type LiveSession } from '../../shared/console/sessions.js';
import type { User } from '../../shared/db/schema.js';
import { unauthorized } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { readSessionCookie } from './cookie.js';

export interface ConsoleState {
  user: User;
  session: LiveSession;
}

const apiKeyRefused = () =>
  unauthorized('API keys are not accepted on the console API; sign in and use the session cookie or token');

/** Runs before every console route, login included: an API key is never a console credential. */
export const refuseApiKeys: Middleware = async (ctx, next) => {
  const bearer = bearerToken(ctx);
  if (ctx.get('x-api-key') || (bearer !== undefined && isApiKeySecret(bearer))) throw apiKeyRefused();
  await next();
};

/**
 * Requires a live session, from `Authorization: Bearer <token>` — the session token or a
 * short-lived token issued for the session (`gwb_`, POST /api/v1/auth/session/token) — or else
 * the session cookie, and sets `ctx.state.user` and `ctx.state.session`. A bearer token that does
 * not resolve is refused even when a cookie is present: the caller chose that credential.
 */
export function requireSession(services: GatewayServices): Middleware {
  return async (ctx, next) => {
    const bearer = bearerToken(ctx);
    const token = bearer ?? readSessionCookie(services, ctx);
    if (!token) throw unauthorized('sign in first: send the session cookie or `Authorization: Bearer <session token>`');
    const session = token.startsWith(BEARER_PREFIX)
      ? await findSessionByBearer(services.db, token, services.linkSecret, services.clock.now())
      : await findSession(services.db, token);
    if (!session) throw unauthorized('the session is invalid, expired or signed out');
    ctx.state.session = session;
    ctx.state.user = session.user;
    await next();
  };
}

/** The signed-in caller; only valid behind `requireSession`. */
export function signedIn(ctx: Context): ConsoleState {
  const state = ctx.state as Partial<ConsoleState>;
  if (!state.user || !state.session) throw new Error('console route mounted without requireSession');
  return { user: state.user, session: state.session };
}

/**
 * The bearer token, or undefined without one. Another scheme is ignored rather than refused: a
 * deployment behind HTTP basic auth has browsers send `Authorization: Basic` next to the cookie.
 */
function bearerToken(ctx: Context): string | undefined {
  const [scheme = '', token = ''] = ctx.get('authorization').trim().split(/\s+/, 2);
  return scheme.toLowerCase() === 'bearer' && token ? token : undefined;
}
