import type { Context, Middleware } from 'koa';
import { badRequest } from '../../shared/errors.js';

/**
 * The request header a console site on another site than its API sends to be answered the
 * short-lived bearer token of a new session instead of the session cookie: `X-Console-Session: bearer`.
 */
export const SESSION_CREDENTIAL_HEADER = 'x-console-session';

/** What a sign-in answers: the session token in the body, the HttpOnly cookie only, or a short-lived bearer token only. */
export type SignInCredential = 'session_token' | 'cookie' | 'bearer';

/**
 * The one rule for what a sign-in hands out (docs/reference/console-api.md, "Session credentials"):
 * - `X-Console-Session: bearer` (a console in bearer mode) → a `gwb_` token in the body, no cookie;
 * - an `Origin` header (a browser: it sends one on every POST fetch) → the HttpOnly cookie only,
 *   so no page script ever holds the long-lived `gws_` session token;
 * - neither (a script, a CLI, a server) → the `gws_` session token in the body, and the cookie.
 */
export function signInCredential(ctx: Context): SignInCredential {
  if (askedForBearer(ctx)) return 'bearer';
  return ctx.get('origin') !== '' ? 'cookie' : 'session_token';
}

function askedForBearer(ctx: Context): boolean {
  const asked = ctx.get(SESSION_CREDENTIAL_HEADER).trim();
  if (asked === '') return false;
  if (asked.toLowerCase() === 'bearer') return true;
  throw badRequest(
    `X-Console-Session must be 'bearer' (or be left out for the session cookie), got '${asked.slice(0, 40)}'`,
    'X-Console-Session',
  );
}

/** Before every console route: a wrong X-Console-Session is refused before a sign-in spends a code or a ticket. */
export const checkSessionCredentialHeader: Middleware = async (ctx, next) => {
  askedForBearer(ctx);
  await next();
};
