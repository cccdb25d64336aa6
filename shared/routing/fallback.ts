import type { GatewayError } from '../errors.js';
import { isRetryableStatus, upstreamStatusError, upstreamTransportError } from '../providers/upstream-errors.js';
import type { Upstream } from '../providers/registry.js';
import type { UpstreamCall } from '../providers/upstream-call.js';
import type { AccountHealth } from './account-health.js';
import type { RouteChoice } from './plan.js';

export interface RoutedResponse {
  upstream: Upstream;
  upstreamModel: string;
  /** `<provider>/<account>` that answered. */
  account: string;
  response: UpstreamCall;
}

/** How much of an attempt's answer decides whether it stands: its headers, or the whole response. */
export type AwaitUntil = 'headers' | 'whole';

/** A call in progress as its client-side handler sees it: the attempt now running, and whether the client left. */
export interface CallState {
  upstream: UpstreamCall | undefined;
  clientGone: boolean;
}

/** How a call's attempts are sent: built once per call, its `send` called once per route tried. */
export interface Dispatch<R> {
  readonly state: CallState;
  /** How much of an attempt's answer decides whether it stands (a stream: its headers). */
  readonly until: AwaitUntil;
  /** Starts one attempt on one upstream account. */
  send(upstream: Upstream, upstreamModel: string, request: R): UpstreamCall;
}

/**
 * Tries one model's routes (upstream accounts) in the plan's order. A route that cannot be
 * reached, or answers 5xx or 429 before any byte reached the client, hands over to the next; the
 * last route's answer stands (the caller decides whether a failing one moves to the next model).
 * Each outcome is reported to the shared account health, without waiting for Redis.
 * `dispatch.send` starts one attempt, which `state.upstream` then names (so a client that leaves can
 * abort it). A stream is judged by its headers; a JSON answer is awaited whole, so a body cut short
 * is a failed route too.
 */
export async function sendWithFallback<R>(
  health: AccountHealth,
  routes: readonly RouteChoice[],
  dispatch: Dispatch<R>,
  request: R,
): Promise<RoutedResponse> {
  const { state, until } = dispatch;
  // Objects are built whole here, never as `{ ...a, b }`: on Node 20 that form costs about a
  // microsecond per added property and leaves a slow object behind (docs/decisions/0001-hot-path-on-node-http.md).
  let failure: GatewayError | undefined;
  for (let i = 0; i < routes.length; i++) {
    const route = routes[i]!;
    const call = dispatch.send(route.upstream, route.upstreamModel, request);
    state.upstream = call;
    if (state.clientGone) call.abort(new Error('the client closed the connection'));
    try {
      await (until === 'whole' ? call.complete() : call.started);
    } catch (err) {
      if (state.clientGone) throw err;
      failure = upstreamTransportError(err);
      report(health, route.healthKey, false, undefined);
      continue;
    }
    const retryable = isRetryableStatus(call.statusCode);
    const retryAfter = headerValue(call.headers['retry-after']);
    report(health, route.healthKey, !retryable, call.statusCode === 429 ? retryAfter : undefined);
    if (i === routes.length - 1 || !retryable)
      return { upstream: route.upstream, upstreamModel: route.upstreamModel, account: route.account, response: call };
    failure = upstreamStatusError(call.statusCode, retryAfter);
    await call.discard();
  }
  throw failure ?? new Error('model has no routes');
}

function report(health: AccountHealth, account: string, ok: boolean, retryAfter: string | undefined): void {
  const done = ok
    ? health.success(account)
    : health.failure(account, retryAfter === undefined ? 0 : Number(retryAfter) * 1000 || 0);
  done.catch(() => undefined); // health is advice: a Redis hiccup must not fail the call
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
