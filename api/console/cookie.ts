import type { Context } from 'koa';

export const SESSION_COOKIE = 'gw_session';

// HttpOnly keeps the token from page scripts; Lax keeps it off cross-site POSTs; Secure whenever the
// request came over HTTPS (Koa reads X-Forwarded-Proto when TRUST_PROXY is on).
const attributes = (ctx: Context) => ({ path: '/', httpOnly: true, sameSite: 'lax' as const, secure: ctx.secure, overwrite: true });

export function setSessionCookie(ctx: Context, token: string, expiresAt: Date): void {
  ctx.cookies.set(SESSION_COOKIE, token, { ...attributes(ctx), expires: expiresAt });
}

export function clearSessionCookie(ctx: Context): void {
  ctx.cookies.set(SESSION_COOKIE, '', { ...attributes(ctx), expires: new Date(0) });
}

export function readSessionCookie(ctx: Context): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE) || undefined;
}
