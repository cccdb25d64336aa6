import type { Middleware } from 'koa';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { notFound, unauthorized } from '../../shared/errors.js';
import { apiRegistry } from '../../shared/metrics.js';
import { sameSecret } from '../../shared/same-secret.js';

/**
 * GET /metrics of an API process, in Prometheus text (the response cache's hit, miss and bypass
 * counters per model): for the operator's bearer token only; without OPERATOR_TOKEN it does not
 * exist (404), as the other operator endpoints. Workers serve theirs on WORKER_METRICS_PORT.
 */
export function apiMetrics(services: GatewayServices): Middleware {
  const token = services.config.operatorToken;
  return async (ctx) => {
    if (!token) throw notFound();
    const bearer = ctx.get('authorization').replace(/^Bearer\s+/i, '');
    if (!sameSecret(bearer, token)) throw unauthorized('invalid operator token');
    ctx.set('content-type', apiRegistry.contentType);
    ctx.body = await apiRegistry.metrics();
  };
}
