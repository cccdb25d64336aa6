import type { CatalogModel } from '../catalog/index.js';
import { isGatewayError, type GatewayError } from '../errors.js';
import { passUpstreamError } from '../providers/pass-upstream-error.js';
import { isRetryableStatus } from '../providers/upstream-errors.js';
import type { CallState, RoutedResponse } from '../routing/fallback.js';
import type { CallMeter } from './call-meter.js';

// The next model is tried when this one could not be served at all: no available account, its
// upstreams unreachable, timing out, failing or rate-limited (spec behaviours 2-3).
const FALLBACK_CODES = new Set(['upstream_error', 'upstream_timeout', 'upstream_rate_limited', 'upstream_unavailable']);
export function movesToNextModel(err: unknown): boolean {
  return isGatewayError(err) && FALLBACK_CODES.has(err.code);
}

/** The meter of the attempt running now, and how a fallback attempt gets its own (`<id>-fb1`, …). */
export interface MeterChain {
  meter: CallMeter;
  nextMeter(attempt: number, previous: CallMeter): CallMeter;
}

export interface ModelAnswer {
  routed: RoutedResponse;
  model: CatalogModel;
  meter: CallMeter;
}

/**
 * Each model of a plan in turn, each metered and charged on its own: `run` routes, admits and sends
 * (with route fallback) for one model. The next model is tried when one could not be served at all
 * (a failure of FALLBACK_CODES, or a retryable upstream status while others remain), the finished
 * attempt recorded. Resolves with the first 200 answer; throws the last failure, an upstream's
 * refusal passed on. `chain.meter` is always the meter of the attempt that ran last (the caller
 * finishes it on failure). Every surface's model loop: generation, embeddings, images.
 */
export async function tryModels(
  models: readonly CatalogModel[],
  chain: MeterChain,
  state: CallState,
  run: (model: CatalogModel, meter: CallMeter) => Promise<RoutedResponse>,
  onModel?: (model: CatalogModel) => void,
): Promise<ModelAnswer> {
  for (let attempt = 0; ; attempt++) {
    const model = models[attempt]!;
    const last = attempt === models.length - 1;
    if (attempt > 0) chain.meter = chain.nextMeter(attempt, chain.meter);
    const meter = chain.meter;
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
        account: routed.account,
      });
      continue;
    }
    onModel?.(model);
    if (status !== 200) await passUpstreamError(routed);
    return { routed, model, meter };
  }
}
