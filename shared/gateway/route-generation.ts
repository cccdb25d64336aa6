import { affordableOutput } from '../billing/affordable.js';
import { tokenCost } from '../billing/pricing.js';
import type { CatalogModel } from '../catalog/index.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import { CHAT_ADAPTERS } from '../providers/chat-adapters.js';
import type { ImageFetchLimits } from '../assets/fetch-images.js';
import type { GenerationRequest } from '../providers/generation-request.js';
import type { Upstream } from '../providers/registry.js';
import type { UpstreamCall } from '../providers/upstream-call.js';
import type { ChatProtocol, ClientProtocol } from '../protocols/canonical/types.js';
import { sendWithFallback, type CallState } from '../routing/fallback.js';
import { routesFor, type RouteChoice, type RoutingPlan } from '../routing/plan.js';
import { discountOf } from './pipeline.js';
import type { GatewayServices } from './services.js';
import { tryModels, type MeterChain, type ModelAnswer } from './try-models.js';

/** A generation call's way through its plan, as the HTTP handler and the private-protocol worker both run it. */
export interface GenerationAttempts extends MeterChain {
  key: ApiKeyContext;
  plan: RoutingPlan;
  request: GenerationRequest;
  /** The client's own output cap, if it set one. */
  maxTokens: number | undefined;
  /** An upper bound of the prompt's tokens for a model. */
  promptTokens(model: CatalogModel): number;
  state: CallState;
  /** The rate-limit headers of each admission, for the answer. */
  onLimitHeaders?(headers: Record<string, string>): void;
  /** The model whose answer (or refusal) stands, before it is read. */
  onModel?(model: CatalogModel): void;
  /** How the gateway fetches image URLs for upstreams that read only inline images. */
  images: ImageFetchLimits;
}

export type RoutedGeneration = ModelAnswer;

/** Sends one route's request in the route's own protocol (the client's bytes, or a translation), held to the reserved output. */
function sendRoute(
  upstream: Upstream,
  upstreamModel: string,
  call: { request: GenerationRequest; maxOutput: number },
): UpstreamCall {
  const protocol = upstream.provider.protocol as ChatProtocol;
  const { request } = call;
  const forwarded = protocol === request.protocol ? request.forwarded : undefined;
  const body = request.bodyFor(protocol, upstreamModel, call.maxOutput, upstream.provider.max_tokens_field);
  return CHAT_ADAPTERS[protocol].send(upstream, upstreamModel, body, request.stream, forwarded);
}

function protocolsOf(routes: readonly RouteChoice[], own: ClientProtocol): Set<ChatProtocol> {
  const protocols = new Set<ChatProtocol>();
  for (const route of routes)
    if (route.upstream.provider.protocol !== own) protocols.add(route.upstream.provider.protocol as ChatProtocol);
  return protocols;
}

/**
 * Each model of the plan in turn (tryModels), each admitted, metered and charged on its own: its
 * routes, the reservation (steps 5-6), then the image fetches and the upstream call with route
 * fallback. The reservation covers every answer asked for (`n`) at the output cap each upstream is
 * held to; what an upstream still delivers beyond it is charged at settlement (call-meter.ts).
 */
export function routeGeneration(services: GatewayServices, attempts: GenerationAttempts): Promise<RoutedGeneration> {
  const { key, plan, request, state } = attempts;
  const routing = services.routing;
  return tryModels(
    plan.models,
    attempts,
    state,
    async (model, meter) => {
      const maxOutput = attempts.maxTokens ?? model.max_output_tokens;
      const allOutput = maxOutput * request.choices;
      const routes = await routesFor(routing, model, plan.preferences);
      const protocols = protocolsOf(routes, request.protocol);
      // A request an upstream's protocol cannot express is refused before anything is reserved.
      request.prepare(protocols, maxOutput, attempts.images);
      // The prompt counted by the model's tokenizer bounds money and TPM alike (see prompt-tokens.ts).
      const promptTokens = attempts.promptTokens(model);
      const discount = discountOf(services, key);
      const maxCost = tokenCost(
        model,
        { inputTokens: promptTokens, outputTokens: allOutput, cachedTokens: 0 },
        discount,
      );
      const limitHeaders = await meter.admit(model, maxCost, promptTokens + allOutput).catch((err: unknown) => {
        throw affordableOutput(err, model, promptTokens, maxOutput, discount, request.choices);
      });
      attempts.onLimitHeaders?.(limitHeaders);
      // Only an admitted call makes the gateway fetch anything; a refused fetch gives the reservation back (a 400, charged nothing).
      await request.fetchImages(protocols, attempts.images);
      return sendWithFallback(
        routing.health,
        routes,
        request.stream ? 'headers' : 'whole',
        sendRoute,
        { request, maxOutput },
        state,
      );
    },
    attempts.onModel,
  );
}
