import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { GatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { customMethodOf, type Route, type RouteAuth, type RouteGroup } from '../routes/route.js';
import { exchangeFromKoa } from './exchange.js';
import type { FastHandlers } from './route-table.js';

/**
 * A router of the API. Paths match case-sensitively, as the fast path's route table and every
 * prefix check (the console's CORS, the error renderer, the queue dashboard's guard) do: a route
 * reachable as `/API/V1/keys` too would be one that those checks do not see.
 */
export function apiRouter(prefix?: string): Router {
  return new Router({ sensitive: true, ...(prefix === undefined ? {} : { prefix }) });
}

/** The rest of the path a `*param` took (one string; joined should a router version split it). */
export function pathParam(ctx: Context, name: string): string {
  const raw = ctx.params[name] as string | string[] | undefined;
  return Array.isArray(raw) ? raw.join('/') : (raw ?? '');
}

/** One Koa router per group, in the group order; every route of the list but those served by middleware. */
export function groupRouters(services: GatewayServices, groups: readonly RouteGroup[], fast: FastHandlers): Router[] {
  const list = groups.flatMap((g) => g.routes);
  return groups.map((group) => groupRouter(services, group, list, fast));
}

function groupRouter(services: GatewayServices, group: RouteGroup, list: readonly Route[], fast: FastHandlers): Router {
  const prefix = group.prefix ?? '';
  const router = apiRouter(group.prefix);
  const before = group.before?.(services) ?? [];
  if (before.length > 0) router.use(...before);
  const authenticators = new Map<RouteAuth, Middleware>();
  const authenticator = (auth: RouteAuth) => {
    const build = group.authenticate?.[auth];
    if (build && !authenticators.has(auth)) authenticators.set(auth, build(services));
    return authenticators.get(auth);
  };
  const customMethods = new Map<string, Map<string, Middleware>>();
  for (const route of group.routes) {
    if ('middleware' in route) continue;
    if (!route.path.startsWith(prefix)) throw new Error(`route ${route.path} is outside its group's ${prefix}`);
    const auth = authenticator(route.auth);
    const run = handlerOf(services, route, list, fast);
    const chain: Middleware = auth ? (ctx, next) => auth(ctx, () => run(ctx, next)) : run;
    const custom = customMethodOf(route.path);
    if (!custom) {
      router.register(route.path.slice(prefix.length), [route.method.toUpperCase()], [chain]);
      continue;
    }
    // Every verb of one path is one Koa route (registered where its first verb is declared).
    const key = `${route.method} ${custom.base}`;
    let verbs = customMethods.get(key);
    if (!verbs) {
      customMethods.set(key, (verbs = new Map()));
      router.register(
        custom.base.slice(prefix.length),
        [route.method.toUpperCase()],
        [customMethodRoute(custom.base, verbs)],
      );
    }
    verbs.set(custom.verb, chain);
  }
  return router;
}

/**
 * A custom method's route: the verb after the last colon picks the handler, which finds the
 * parameter without it; a verb nobody declared answers 501 (the protocol may well define it).
 */
function customMethodRoute(base: string, verbs: Map<string, Middleware>): Middleware {
  const name = base.slice(base.lastIndexOf('*') + 1);
  const noun = base.slice(0, base.lastIndexOf('/*')).split('/').at(-1);
  return (ctx: Context, next: Next) => {
    const rest = pathParam(ctx, name);
    const colon = rest.lastIndexOf(':');
    const verb = colon === -1 ? '' : rest.slice(colon + 1);
    const handler = verbs.get(verb);
    if (!handler)
      throw new GatewayError(
        'not_implemented',
        501,
        `${noun}/{${name}}:${verb || '(none)'} is not implemented by this gateway`,
      );
    ctx.params[name] = rest.slice(0, colon);
    return handler(ctx, next);
  };
}

/**
 * A route's Koa handler. A fast route is registered on Koa too: node:http answers its exact POST,
 * Koa the rest of what its router would (a trailing slash, and 405 for the other methods).
 */
function handlerOf(services: GatewayServices, route: Route, list: readonly Route[], fast: FastHandlers): Middleware {
  if ('handler' in route) return route.handler(services, list);
  if (!('fast' in route)) throw new Error(`route ${route.path} has no handler`);
  const handler = fast.of(route.fast);
  const custom = customMethodOf(route.path);
  if (!custom) return (ctx) => handler(exchangeFromKoa(ctx), {});
  const name = custom.base.slice(custom.base.lastIndexOf('*') + 1);
  const stream = 'generation' in route.fast ? route.fast.stream : undefined;
  return (ctx) => handler(exchangeFromKoa(ctx), { model: pathParam(ctx, name), stream });
}
