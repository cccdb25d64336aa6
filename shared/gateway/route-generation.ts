import { affordableOutput } from '../billing/affordable.js';
import { tokenCost } from '../billing/pricing.js';
import type { CatalogModel } from '../catalog/index.js';
import { isGatewayError, type GatewayError } from '../errors.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import { CHAT_ADAPTERS } from '../providers/chat-adapters.js';
import type { GenerationRequest, ImageFetcher } from '../providers/generation-request.js';
import { passUpstreamError } from '../providers/pass-upstream-error.js';
import type { Upstream } from '../providers/registry.js';
import type { UpstreamCall } from '../providers/upstream-call.js';
import { isRetryableStatus } from '../providers/upstream-errors.js';
import type { ChatProtocol, ClientProtocol } from '../protocols/canonical/types.js';
import { sendWithFallback, type CallState, type RoutedResponse } from '../routing/fallback.js';
import { routesFor, type RouteChoice, type RoutingPlan } from '../routing/plan.js';
import type { CallMeter } from './call-meter.js';
import { discountOf } from './pipeline.js';
import type { GatewayServices } from './services.js';

/** A generation call's way through its plan, as the HTTP handler and the private-protocol worker both run it. */
export interface GenerationAttempts {
  key: ApiKeyContext;
  plan: RoutingPlan;
  request: GenerationRequest;
  /** The client's own output cap, if it set one. */
  maxTokens: number | undefined;
  /** An upper bound of the prompt's tokens for a model. */
  promptTokens(model: CatalogModel): number;
  /** The meter of the attempt running now; `next` makes the one of a fallback attempt. */
  meter: CallMeter;
  nextMeter(attempt: number, previous: CallMeter): CallMeter;
  state: CallState;
  /** The rate-limit headers of each admission, for the answer. */
  onLimitHeaders?(headers: Record<string, string>): void;
  /** The model whose answer (or refusal) stands, before it is read. */
  onModel?(model: CatalogModel): void;
  fetchImage: ImageFetcher;
}

export interface RoutedGeneration {
  routed: RoutedResponse;
  model: CatalogModel;
  meter: CallMeter;
}

// The next model is tried when this one could not be served at all: no available account, its
// upstreams unreachable, timing out, failing or rate-limited (spec behaviours 2-3).
const FALLBACK_CODES = new Set(['upstream_error', 'upstream_timeout', 'upstream_rate_limited', 'upstream_unavailable']);
export function movesToNextModel(err: unknown): boolean {
  return isGatewayError(err) && FALLBACK_CODES.has(err.code);
}

/** Sends one route's request in the route's own protocol (the client's bytes, or a translation). */
function sendRoute(upstream: Upstream, upstreamModel: string, call: { request: GenerationRequest; maxOutput: number }): UpstreamCall {
  const protocol = upstream.provider.protocol as ChatProtocol;
  const { request } = call;
  const forwarded = protocol === request.protocol ? request.forwarded : undefined;
  return CHAT_ADAPTERS[protocol].send(upstream, upstreamModel, request.bodyFor(protocol, upstreamModel, call.maxOutput), request.stream, forwarded);
}

function protocolsOf(routes: readonly RouteChoice[], own: ClientProtocol): Set<ChatProtocol> {
  const protocols = new Set<ChatProtocol>();
  for (const route of routes) if (route.upstream.provider.protocol !== own) protocols.add(route.upstream.provider.protocol as ChatProtocol);
  return protocols;
}

/**
 * Each model of the plan in turn, each admitted, metered and charged on its own (`<id>`, `<id>-fb1`,
 * …): its routes, the reservation (steps 5-6), the upstream call with route fallback. Resolves with
 * the first 200 answer (its headers for a stream, whole otherwise); throws the last failure, an
 * upstream's refusal passed on. `attempts.meter` is always the meter of the attempt that ran last
 * (the caller finishes it on failure).
 */
export async function routeGeneration(services: GatewayServices, attempts: GenerationAttempts): Promise<RoutedGeneration> {
  const { key, plan, request, state } = attempts;
  const routing = services.routing;
  for (let attempt = 0; ; attempt++) {
    const model = plan.models[attempt]!;
    const last = attempt === plan.models.length - 1;
    if (attempt > 0) attempts.meter = attempts.nextMeter(attempt, attempts.meter);
    const meter = attempts.meter;
    const maxOutput = attempts.maxTokens ?? model.max_output_tokens;
    let routes: RouteChoice[];
    try {
      routes = await routesFor(routing, model, plan.preferences);
    } catch (err) {
      // Every account of this model is resting: the next model of the plan, if any.
      if (last || !movesToNextModel(err)) throw err;
      await meter.finish({ statusCode: (err as GatewayError).status, errorCode: (err as GatewayError).code });
      continue;
    }
    // A request an upstream's protocol cannot express is refused before anything is reserved.
    await request.prepare(protocolsOf(routes, request.protocol), maxOutput, attempts.fetchImage);
    // The prompt counted by the model's tokenizer bounds money and TPM alike (see prompt-tokens.ts).
    const promptTokens = attempts.promptTokens(model);
    const discount = discountOf(services, key);
    const maxCost = tokenCost(model, { inputTokens: promptTokens, outputTokens: maxOutput, cachedTokens: 0 }, discount);
    const limitHeaders = await meter.admit(model, maxCost, promptTokens + maxOutput).catch((err: unknown) => {
      throw affordableOutput(err, model, promptTokens, maxOutput, discount);
    });
    attempts.onLimitHeaders?.(limitHeaders);

    let routed: RoutedResponse;
    try {
      routed = await sendWithFallback(routing.health, routes, request.stream ? 'headers' : 'whole', sendRoute, { request, maxOutput }, state);
    } catch (err) {
      if (last || state.clientGone || !movesToNextModel(err)) throw err;
      await meter.finish({ statusCode: (err as GatewayError).status, errorCode: (err as GatewayError).code });
      continue;
    }
    const status = routed.response.statusCode;
    if (status !== 200 && !last && isRetryableStatus(status)) {
      await routed.response.discard();
      await meter.finish({ statusCode: status, errorCode: 'upstream_error', provider: routed.upstream.provider.id, account: routed.account });
      continue;
    }
    attempts.onModel?.(model);
    if (status !== 200) await passUpstreamError(routed);
    return { routed, model, meter };
  }
}
