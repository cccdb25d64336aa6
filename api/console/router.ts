import Router from '@koa/router';
import type { GatewayServices } from '../../shared/gateway/services.js';

/** The console API under /api/v1 (session credential). */
export function consoleRouter(_services: GatewayServices): Router {
  return new Router({ prefix: '/api/v1' });
}
