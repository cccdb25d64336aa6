import type { RequestListener } from 'node:http';
import Koa from 'koa';
import { GatewayError } from '../shared/errors.js';
import type { GatewayServices } from '../shared/gateway/services.js';
import { consoleCors } from './console/origin-guard.js';
import { errorBoundary } from './middleware/errors.js';
import { rateLimitHeaders } from './middleware/rate-limit-headers.js';
import { clientAddress, exchangeOf } from './http/exchange.js';
import { refuseNulUrl } from './middleware/refuse-nul-url.js';
import { requestId } from './middleware/request-id.js';
import { FastHandlers, fastRouteTable } from './http/route-table.js';
import { groupRouters } from './http/router.js';
import { ROUTE_GROUPS, ROUTES } from './routes/index.js';
import { notImplemented } from './middleware/not-implemented.js';
import { queueDashboard } from './operator/queue-dashboard.js';
import { noteKoaRequest, observeRequests } from './http/observe.js';
import type Router from '@koa/router';

// Thrown so the error boundary renders it in the caller's protocol, like every other error.
const methodNotAllowed = () => new GatewayError('method_not_allowed', 405, 'method not allowed for this route');

export function createApp(services: GatewayServices, fast: FastHandlers = new FastHandlers(services)): Koa {
  const hops = services.config.http.proxyHops;
  // `proxy` also makes Koa read X-Forwarded-Proto and -Host; the address is ours (clientAddress).
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  app.silent = true; // errors are logged by the boundary, once
  app.use(requestId);
  app.use(noteKoaRequest);
  app.use(clientAddress(hops));
  app.use(errorBoundary(services.log));
  app.use(refuseNulUrl);
  app.use(rateLimitHeaders(services));
  app.use(consoleCors(services));
  for (const middleware of queueDashboard(services)) app.use(middleware);
  for (const router of gatewayRouters(services, fast)) {
    app.use(router.routes());
    app.use(
      router.allowedMethods({ throw: true, methodNotAllowed: methodNotAllowed, notImplemented: methodNotAllowed }),
    );
  }
  app.use(notImplemented);
  return app;
}

/** The Koa routers of the route list (api/routes), in the order they are tried. */
export function gatewayRouters(services: GatewayServices, fast: FastHandlers = new FastHandlers(services)): Router[] {
  return groupRouters(services, ROUTE_GROUPS, fast);
}

/**
 * The API's request listener: the generation and embeddings routes, the hot path, straight on
 * node:http through their route table (Koa's middleware costs more per call than a whole bare proxy
 * does); every other route through Koa. Both are built from the one route list (api/routes).
 */
export function createRequestListener(services: GatewayServices): RequestListener {
  const fast = new FastHandlers(services);
  const koa = createApp(services, fast).callback();
  const generation = fastRouteTable(fast, ROUTES);
  const hops = services.config.http.proxyHops;
  return observeRequests(services.log, services.config.telemetry.accessLog, (req, res, note) => {
    const route = generation(req.method, req.url);
    if (route) {
      note.route = route.path;
      void route.handler(exchangeOf(req, res, hops), route.params);
      return;
    }
    void koa(req, res);
  });
}
