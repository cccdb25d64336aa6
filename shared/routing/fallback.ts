import type { CatalogModel } from '../catalog/index.js';
import type { GatewayError } from '../errors.js';
import { isRetryableStatus, upstreamStatusError, upstreamTransportError } from '../providers/upstream-errors.js';
import type { Upstream, UpstreamRegistry } from '../providers/registry.js';
import type { UpstreamCall } from '../providers/upstream-call.js';

export interface RouteAttempt {
  upstream: Upstream;
  upstreamModel: string;
}

export interface RoutedResponse extends RouteAttempt {
  response: UpstreamCall;
}

/**
 * Tries a model's routes in catalog order. A route that cannot be reached, or answers 5xx or 429
 * before any byte reached the client, hands over to the next; the last route's answer stands.
 * `send` starts the attempt; its status and headers are awaited here.
 */
export async function sendWithFallback(
  upstreams: UpstreamRegistry,
  model: CatalogModel,
  clientGone: () => boolean,
  send: (attempt: RouteAttempt) => UpstreamCall,
): Promise<RoutedResponse> {
  let failure: GatewayError | undefined;
  const routes = model.routes;
  for (let i = 0; i < routes.length; i++) {
    const route = routes[i]!;
    const attempt = { upstream: upstreams.get(route.provider), upstreamModel: route.upstream_model ?? model.id };
    const last = i === routes.length - 1;
    let response: UpstreamCall;
    try {
      response = await send(attempt).started;
    } catch (err) {
      if (clientGone()) throw err;
      failure = upstreamTransportError(err);
      continue;
    }
    if (last || !isRetryableStatus(response.statusCode)) return { ...attempt, response };
    failure = upstreamStatusError(response.statusCode, headerValue(response.headers['retry-after']));
    await response.discard();
  }
  throw failure ?? new Error('model has no routes');
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
