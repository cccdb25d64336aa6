import Koa from 'koa';
import { GatewayError } from '../shared/errors.js';
import type { GatewayServices } from '../shared/gateway/services.js';
import { consoleRouter } from './console/router.js';
import { siteRouter } from './site.js';
import { errorBoundary } from './middleware/errors.js';
import { rateLimitHeaders } from './middleware/rate-limit-headers.js';
import { requestId } from './middleware/request-id.js';
import { openAiRouter } from './openai/router.js';
import { queueDashboard } from './operator/queue-dashboard.js';
import { taskRouter } from './videos/router.js';

// Thrown so the error boundary renders it in the caller's protocol, like every other error.
const methodNotAllowed = () => new GatewayError('method_not_allowed', 405, 'method not allowed for this route');

export function createApp(services: GatewayServices): Koa {
  const app = new Koa({ proxy: services.config.http.trustProxy });
  app.silent = true; // errors are logged by the boundary, once
  app.use(requestId);
  app.use(errorBoundary(services.log));
  app.use(rateLimitHeaders(services));
  for (const middleware of queueDashboard(services)) app.use(middleware);
  for (const router of [siteRouter(services), openAiRouter(services), taskRouter(services), consoleRouter(services)]) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true, methodNotAllowed: methodNotAllowed, notImplemented: methodNotAllowed }));
  }
  return app;
}
