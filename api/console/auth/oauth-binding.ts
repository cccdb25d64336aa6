import type { Context } from 'koa';
import { findSession } from '../../../shared/console/sessions.js';
import type { ReturningBrowser } from '../../../shared/console/oidc.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { readSessionCookie, secureCookies } from '../cookie.js';

/**
 * The cookie that ties a provider sign-in or link to the browser that started it (login and link
 * CSRF): its hash is kept with the state, and the callback refuses a state without it. HttpOnly;
 * Lax, so the top-level redirect back from the provider carries it; sent to the callback's path
 * only; lives as long as the state. One per provider (the path differs): a second start in the
 * same browser replaces the first.
 */
export const BINDING_COOKIE = 'gw_oidc_binding';

function attributes(services: GatewayServices, ctx: Context, callbackUri: string) {
  const secure = secureCookies(services, ctx);
  // Koa refuses a Secure cookie on a request it saw as plain HTTP; the deployment's URL vouches for HTTPS.
  if (secure) ctx.cookies.secure = true;
  return { path: new URL(callbackUri).pathname, httpOnly: true, sameSite: 'lax' as const, secure, overwrite: true };
}

export function setBindingCookie(
  services: GatewayServices,
  ctx: Context,
  callbackUri: string,
  binding: string,
  expiresAt: Date,
): void {
  ctx.cookies.set(BINDING_COOKIE, binding, { ...attributes(services, ctx, callbackUri), expires: expiresAt });
}

/** At the callback: the browser's binding (then cleared: it serves one return) and its console session's user. */
export async function returningBrowser(
  services: GatewayServices,
  ctx: Context,
  callbackUri: string,
): Promise<ReturningBrowser> {
  const binding = ctx.cookies.get(BINDING_COOKIE) || undefined;
  if (binding) ctx.cookies.set(BINDING_COOKIE, '', { ...attributes(services, ctx, callbackUri), expires: new Date(0) });
  const token = readSessionCookie(services, ctx);
  const session = token ? await findSession(services.db, token) : undefined;
  return { binding, userId: session?.user.id };
}
