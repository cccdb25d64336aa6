import type { CatalogModel } from '../catalog/index.js';
import type { GatewayError } from '../errors.js';
import { isRetryableStatus, upstreamStatusError, upstreamTransportError } from '../providers/upstream-errors.js';
import type { Upstream, UpstreamRegistry } from '../providers/registry.js';
import type { UpstreamCall } from '../providers/upstream-call.js';

export interface RoutedResponse {
  upstream: Upstream;
  upstreamModel: string;
  response: UpstreamCall;
}

/** How much of an attempt's answer decides whether it stands: its headers, or the whole response. */
export type AwaitUntil = 'headers' | 'whole';

/** A call in progress as its client-side handler sees it: the attempt now running, and whether the client left. */
export interface CallState {
  upstream: UpstreamCall | undefined;
  clientGone: boolean;
}

/**
 * Tries a model's routes in catalog order. A route that cannot be reached, or answers 5xx or 429
 * before any byte reached the client, hands over to the next; the last route's answer stands.
 * `send(upstream, upstreamModel, request)` starts one attempt, which `state.upstream` then names (so
 * a client that leaves can abort it). A stream is judged by its headers; a JSON answer is awaited
 * whole, so a body cut short is a failed route too.
 */
export async function sendWithFallback<R>(
  upstreams: UpstreamRegistry,
  model: CatalogModel,
  until: AwaitUntil,
  send: (upstream: Upstream, upstreamModel: string, request: R) => UpstreamCall,
  request: R,
  state: CallState,
): Promise<RoutedResponse> {
  // Objects are built whole here, never as `{ ...a, b }`: on Node 20 that form costs about a
  // microsecond per added property and leaves a slow object behind (bench/README.md).
  const routes = model.routes;
  let failure: GatewayError | undefined;
  for (let i = 0; i < routes.length; i++) {
    const route = routes[i]!;
    const upstream = upstreams.get(route.provider);
    const upstreamModel = route.upstream_model ?? model.id;
    const call = send(upstream, upstreamModel, request);
    state.upstream = call;
    if (state.clientGone) call.abort(new Error('the client closed the connection'));
    try {
      await (until === 'whole' ? call.complete() : call.started);
    } catch (err) {
      if (state.clientGone) throw err;
      failure = upstreamTransportError(err);
      continue;
    }
    if (i === routes.length - 1 || !isRetryableStatus(call.statusCode)) return { upstream, upstreamModel, response: call };
    failure = upstreamStatusError(call.statusCode, headerValue(call.headers['retry-after']));
    await call.discard();
  }
  throw failure ?? new Error('model has no routes');
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
