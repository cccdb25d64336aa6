import type { Context } from 'koa';
import type { GatewayServices } from '../../shared/gateway/services.js';

type CookieServices = Pick<GatewayServices, 'config'>;

const PLAIN_NAME = 'gw_session';
// Only a Secure cookie for `/`, set by this very host, may bear the `__Host-` prefix: neither a
// sibling subdomain nor a plain-HTTP page on the network can plant or overwrite the session.
const HOST_NAME = '__Host-gw_session';

/** Either name the session cookie goes by; a request carrying neither has no session cookie. */
export const SESSION_COOKIE_NAMES = [HOST_NAME, PLAIN_NAME] as const;

const isHttps = (url: string | undefined) => url !== undefined && url.startsWith('https:');

/**
 * Secure whenever the deployment is served over HTTPS — CONSOLE_ORIGIN or PUBLIC_BASE_URL says so,
 * or this request came that way (Koa reads X-Forwarded-Proto behind a trusted proxy) — so that a
 * TLS proxy that does not say it terminated TLS still gets a cookie a browser never sends in clear.
 */
export function secureCookies(services: CookieServices, ctx: Context): boolean {
  return ctx.secure || isHttps(services.config.console.origin) || isHttps(services.config.publicBaseUrl);
}

/** `__Host-gw_session` when the cookie is Secure, else `gw_session`; only that name is read. */
export function sessionCookieName(services: CookieServices, ctx: Context): string {
  return secureCookies(services, ctx) ? HOST_NAME : PLAIN_NAME;
}

// HttpOnly keeps the token from page scripts; Lax keeps it off cross-site POSTs.
export function setSessionCookie(services: CookieServices, ctx: Context, token: string, expires: Date): void {
  const secure = secureCookies(services, ctx);
  // Koa refuses a Secure cookie on a request it saw as plain HTTP; the deployment's URL vouches for HTTPS.
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(secure ? HOST_NAME : PLAIN_NAME, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure,
    overwrite: true,
    expires,
  });
}

export function clearSessionCookie(services: CookieServices, ctx: Context): void {
  setSessionCookie(services, ctx, '', new Date(0));
}

export function readSessionCookie(services: CookieServices, ctx: Context): string | undefined {
  return ctx.cookies.get(sessionCookieName(services, ctx)) || undefined;
}
