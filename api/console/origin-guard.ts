import type { Context, Middleware } from 'koa';
import { GatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { baseUrl } from '../http/base-url.js';
import { readSessionCookie } from './cookie.js';
import { SESSION_CREDENTIAL_HEADER } from './sign-in-credential.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const CONSOLE_PREFIX = '/api/v1/';
const ALLOWED_HEADERS = ['authorization', 'content-type', 'x-request-id', SESSION_CREDENTIAL_HEADER].join(', ');
const EXPOSED_HEADERS =
  'x-request-id, retry-after, x-ratelimit-limit-requests, x-ratelimit-remaining-requests, x-ratelimit-reset-requests';

const rejected = () =>
  new GatewayError(
    'csrf_rejected',
    403,
    'this request did not come from the console: its Origin is missing or not allowed',
  );

/**
 * CORS for the console API (/api/v1): cross-origin reads and preflights are allowed for the
 * console's own origin (CONSOLE_ORIGIN) only, with credentials. Mounted on the app, not the
 * router, because a preflight matches no route; the routers are case-sensitive, so this prefix
 * test sees every console path. It only adds headers: refusing is `consoleOriginGuard`'s job.
 */
export function consoleCors(services: GatewayServices): Middleware {
  const consoleOrigin = services.config.console.origin;
  return async (ctx, next) => {
    if (!ctx.path.startsWith(CONSOLE_PREFIX)) return next();
    const origin = ctx.get('origin');
    const allowed = allowedOrigin(services, ctx, origin);
    if (allowed && consoleOrigin && origin === consoleOrigin) {
      ctx.vary('Origin');
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Credentials', 'true');
      ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      if (allowed) {
        ctx.set('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE');
        ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
        ctx.set('Access-Control-Max-Age', '600');
      }
      ctx.status = 204;
      return;
    }
    await next();
  };
}

/**
 * CSRF for the console API, mounted on the console router itself so that it runs for every
 * console route however its path is spelled. A state-changing request that a cookie authenticates
 * must carry an allowed Origin (browsers always send one on such requests); one with
 * `Authorization: Bearer` needs none — a page on another site cannot attach the token. An Origin
 * that is present and foreign is refused on every state-changing request, sign-ins included
 * (login CSRF). The gateway's own origin counts as allowed for same-origin pages.
 */
export function consoleOriginGuard(services: GatewayServices): Middleware {
  return async (ctx, next) => {
    if (!SAFE.has(ctx.method)) {
      const origin = ctx.get('origin');
      if (origin !== '' && !allowedOrigin(services, ctx, origin)) throw rejected();
      if (origin === '' && cookieAuthenticated(services, ctx)) throw rejected();
    }
    await next();
  };
}

function allowedOrigin(services: GatewayServices, ctx: Context, origin: string): boolean {
  return origin !== '' && (origin === services.config.console.origin || origin === ownOrigin(services, ctx));
}

function cookieAuthenticated(services: GatewayServices, ctx: Context): boolean {
  return !/^\s*bearer\s+\S/i.test(ctx.get('authorization')) && readSessionCookie(services, ctx) !== undefined;
}

function ownOrigin(services: GatewayServices, ctx: Context): string {
  const base = baseUrl(services, ctx);
  return URL.canParse(base) ? new URL(base).origin : '';
}
