import type { CatalogModel } from '../catalog/index.js';
import { isGatewayError, type GatewayError } from '../errors.js';
import type { GatewayServices } from '../gateway/services.js';
import { passUpstreamError } from '../providers/pass-upstream-error.js';
import { isRetryableStatus } from '../providers/upstream-errors.js';
import { sendWithFallback, type CallState, type Dispatch, type RoutedResponse } from '../routing/fallback.js';
import { routesFor, type RouteChoice } from '../routing/plan.js';
import type { ProviderPreferences } from '../routing/provider-preferences.js';
import type { CallMeter } from './call-meter.js';
import type { MeterChain } from './meter-chain.js';

export type { Dispatch };

// The next model is tried when this one could not be served at all: no available account, its
// upstreams unreachable, timing out, failing or rate-limited (spec behaviours 2-3).
const FALLBACK_CODES = new Set(['upstream_error', 'upstream_timeout', 'upstream_rate_limited', 'upstream_unavailable']);
export function movesToNextModel(err: unknown): boolean {
  return isGatewayError(err) && FALLBACK_CODES.has(err.code);
}

export interface ModelAnswer {
  routed: RoutedResponse;
  model: CatalogModel;
  meter: CallMeter;
}

/** What an admitted model attempt sends, and how: built once per call, used by every attempt. */
export interface AdmittedDispatch<R> extends Dispatch<R> {
  /**
   * Readies the attempt for the model's routes before anything is reserved (a request they cannot
   * carry is refused here) and prices it: the reservation's cost, `tokens` set for the limits.
   */
  price(model: CatalogModel, routes: readonly RouteChoice[]): number;
  /** The tokens the attempt priced last is reserved for (TPM). */
  readonly tokens: number;
  /** The rate-limit headers of each admission, for the answer. */
  limitHeaders(headers: Record<string, string>): void;
  /** Rewrites the admission's refusal (text calls say what output the balance still covers). */
  refused?(err: unknown, model: CatalogModel): unknown;
  /** What goes upstream, made once the attempt is admitted: only an admitted call fetches anything. */
  admitted(model: CatalogModel): R | Promise<R>;
}

/**
 * Each model of a plan in turn, each metered and charged on its own: `run` routes, admits and sends
 * (with route fallback) for one model. The next model is tried when one could not be served at all
 * (a failure of FALLBACK_CODES, or a retryable upstream status while others remain), the finished
 * attempt recorded. Resolves with the first 200 answer; throws the last failure, an upstream's
 * refusal passed on; `answer.model` hears of the model whose answer stands. `chain.meter` is always
 * the meter of the attempt that ran last (the caller finishes it on failure). Every metered call's
 * model loop: text, embeddings, images.
 */
export async function tryModels(
  models: readonly CatalogModel[],
  chain: MeterChain,
  state: CallState,
  run: (model: CatalogModel, meter: CallMeter) => Promise<RoutedResponse>,
  answer: { model(model: CatalogModel): void },
): Promise<ModelAnswer> {
  for (let attempt = 0; ; attempt++) {
    const model = models[attempt]!;
    const last = attempt === models.length - 1;
    const meter = attempt > 0 ? chain.next(attempt) : chain.meter;
    // Named before admission, so an attempt skipped before it (no available account) records its model.
    meter.model = model;
    let routed: RoutedResponse;
    try {
      routed = await run(model, meter);
    } catch (err) {
      if (last || state.clientGone || !movesToNextModel(err)) throw err;
      await meter.finish({ statusCode: (err as GatewayError).status, errorCode: (err as GatewayError).code });
      continue;
    }
    const status = routed.response.statusCode;
    if (status !== 200 && !last && isRetryableStatus(status)) {
      await routed.response.discard();
      await meter.finish({
        statusCode: status,
        errorCode: 'upstream_error',
        provider: routed.upstream.provider.id,
        upstreamModel: routed.upstreamModel,
        account: routed.account,
      });
      continue;
    }
    answer.model(model);
    if (status !== 200) await passUpstreamError(routed);
    return { routed, model, meter };
  }
}

/**
 * One model attempt: its routes (shared/routing/plan.ts), its price, the reservation (steps 5-6),
 * its rate-limit headers to the answer, what only an admitted call may do (fetch images, re-host
 * references: a refusal there gives the reservation back), then the routes in turn.
 */
export async function admitAndSend<R>(
  services: GatewayServices,
  meter: CallMeter,
  model: CatalogModel,
  preferences: ProviderPreferences | undefined,
  dispatch: AdmittedDispatch<R>,
): Promise<RoutedResponse> {
  const routes = await routesFor(services.routing, model, preferences);
  const maxCost = dispatch.price(model, routes);
  let headers: Record<string, string>;
  try {
    headers = await meter.admit(model, maxCost, dispatch.tokens);
  } catch (err) {
    throw dispatch.refused ? dispatch.refused(err, model) : err;
  }
  dispatch.limitHeaders(headers);
  const request = await dispatch.admitted(model);
  return sendWithFallback(services.routing.health, routes, dispatch, request);
}
