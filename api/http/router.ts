import Router from '@koa/router';

/**
 * A router of the API. Paths match case-sensitively, as the fast path's route table and every
 * prefix check (the console's CORS, the error renderer, the queue dashboard's guard) do: a route
 * reachable as `/API/V1/keys` too would be one that those checks do not see.
 */
export function apiRouter(prefix?: string): Router {
  return new Router({ sensitive: true, ...(prefix === undefined ? {} : { prefix }) });
}
