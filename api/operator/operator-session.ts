import { createHmac } from 'node:crypto';
import type { Context } from 'koa';
import { GatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { sameSecret } from '../../shared/same-secret.js';
import { secureCookies } from '../console/cookie.js';

const COOKIE = 'gw_operator';
/** How long a browser sign-in lasts (ms); then the token is asked for again. */
const SESSION_MS = 8 * 60 * 60 * 1000;
const FORM_LIMIT = 4096;

/**
 * A dashboard session: `<expiry s>.<HMAC>` keyed by OPERATOR_TOKEN itself, so the cookie never
 * holds the token, a stolen cookie dies within SESSION_MS, and changing the token ends them all.
 */
function sessionMac(token: string, expires: number): string {
  return createHmac('sha256', token).update(`operator-session.v1\0${expires}`).digest('base64url');
}

export function hasOperatorSession(ctx: Context, token: string): boolean {
  const [expires = '', mac] = (ctx.cookies.get(COOKIE) ?? '').split('.', 2);
  const at = Number(expires);
  return /^\d+$/.test(expires) && at * 1000 > Date.now() && sameSecret(mac, sessionMac(token, at));
}

export const hasOperatorCookie = (ctx: Context) => ctx.cookies.get(COOKIE) !== undefined;

/**
 * POST <basePath> with the form field `token`: the right token sets the session cookie (HttpOnly,
 * SameSite=Strict, the dashboard's path only, Secure on HTTPS deployments) and goes to the
 * dashboard; a wrong one shows the form again. Tries count toward the per-IP sign-in throttle.
 */
export async function operatorSignIn(
  services: GatewayServices,
  ctx: Context,
  token: string,
  basePath: string,
  throttle: () => Promise<void>,
): Promise<void> {
  await throttle();
  const given = new URLSearchParams(await readForm(ctx)).get('token') ?? undefined;
  if (!sameSecret(given, token)) return signInForm(ctx, basePath, 'That is not the operator token.');
  const expires = Math.floor((Date.now() + SESSION_MS) / 1000);
  const secure = secureCookies(services, ctx);
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(COOKIE, `${expires}.${sessionMac(token, expires)}`, {
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: basePath,
    maxAge: SESSION_MS,
    overwrite: true,
  });
  ctx.status = 303;
  ctx.redirect(basePath);
}

/** The sign-in page (401): one field, posted to the dashboard's own path; no script, nothing external. */
export function signInForm(ctx: Context, basePath: string, notice?: string): void {
  ctx.status = 401;
  ctx.set('Content-Security-Policy', "default-src 'none'; form-action 'self'; frame-ancestors 'none'");
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'html';
  const note = notice ? `<p role="alert">${notice}</p>` : '';
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Queue dashboard</title></head><body><h1>Queue dashboard</h1>${note}<form method="post" action="${basePath}"><label>Operator token <input type="password" name="token" autocomplete="current-password" required></label> <button type="submit">Sign in</button></form></body></html>`;
}

async function readForm(ctx: Context): Promise<string> {
  if (!ctx.is('application/x-www-form-urlencoded'))
    throw new GatewayError('unsupported_media_type', 415, 'send the operator token as the form field `token`', {
      param: 'token',
    });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT) throw new GatewayError('body_too_large', 413, `request body exceeds ${FORM_LIMIT} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
