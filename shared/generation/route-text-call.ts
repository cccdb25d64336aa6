import type { ImageFetchLimits } from '../assets/fetch-images.js';
import { affordableOutput } from '../billing/affordable.js';
import { tokenCost } from '../billing/pricing.js';
import type { CatalogModel } from '../catalog/index.js';
import type { GatewayServices } from '../gateway/services.js';
import type { ChatProtocol } from '../protocols/canonical/types.js';
import { CHAT_ADAPTERS } from '../providers/chat-adapters.js';
import type { Upstream } from '../providers/registry.js';
import type { UpstreamCall } from '../providers/upstream-call.js';
import type { AwaitUntil, CallState } from '../routing/fallback.js';
import type { RouteChoice } from '../routing/plan.js';
import { discountOfCall } from './call-meter.js';
import { passageOf, translationsOf } from './passage.js';
import type { GenerationRequest } from './request-body.js';
import { admitAndSend, tryModels, type AdmittedDispatch, type ModelAnswer } from './route-loop.js';
import type { TextCall } from './text-call.js';
import type { TextSink } from './text-sink.js';

/**
 * Each model of the call's plan in turn (tryModels), each admitted, metered and charged on its own:
 * its routes, the request readied for their protocols, the reservation (steps 5-6), then the image
 * fetches and the upstream call with route fallback (admitAndSend). The reservation covers every
 * answer asked for (`n`) at the output cap each upstream is held to; what an upstream still
 * delivers beyond it is charged at settlement (call-meter.ts).
 */
export function routeTextCall(services: GatewayServices, call: TextCall, sink: TextSink): Promise<ModelAnswer> {
  const dispatch = new TextDispatch(services, call, sink);
  const plan = call.plan;
  return tryModels(
    plan.models,
    call,
    call.state,
    (model, meter) => admitAndSend(services, meter, model, plan.preferences, dispatch),
    sink,
  );
}

/** How a text call's model attempts are admitted and sent: one per call, its fields those of the model attempt running. */
class TextDispatch implements AdmittedDispatch<GenerationRequest> {
  readonly state: CallState;
  readonly until: AwaitUntil;
  readonly images: ImageFetchLimits;
  /** The output cap each upstream of this model is held to (the client's, else the model's). */
  maxOutput = 0;
  promptTokens = 0;
  tokens = 0;
  translations: readonly ChatProtocol[] = [];

  constructor(
    private readonly services: GatewayServices,
    private readonly call: TextCall,
    private readonly sink: TextSink,
  ) {
    this.state = call.state;
    this.until = call.parsed.stream ? 'headers' : 'whole';
    this.images = services.config.imageFetch;
  }

  price(model: CatalogModel, routes: readonly RouteChoice[]): number {
    const { call } = this;
    const request = call.request;
    const maxOutput = call.parsed.maxTokens ?? model.max_output_tokens;
    const allOutput = maxOutput * request.choices;
    const translations = translationsOf(call.protocol, routes);
    // A request an upstream's protocol cannot express is refused before anything is reserved.
    request.prepare(translations, maxOutput, this.images);
    // The prompt counted by the model's tokenizer bounds money and TPM alike (see prompt-tokens.ts).
    const promptTokens = call.parsed.promptTokens(model, call.bodyBytes);
    this.maxOutput = maxOutput;
    this.promptTokens = promptTokens;
    call.promptTokens = promptTokens;
    this.tokens = promptTokens + allOutput;
    this.translations = translations;
    const usage = { inputTokens: promptTokens, outputTokens: allOutput, cachedTokens: 0 };
    return tokenCost(model, usage, discountOfCall(this.services, call, model));
  }

  limitHeaders(headers: Record<string, string>): void {
    this.sink.limitHeaders(headers);
  }

  refused(err: unknown, model: CatalogModel): unknown {
    const discount = discountOfCall(this.services, this.call, model);
    return affordableOutput(err, model, this.promptTokens, this.maxOutput, discount, this.call.request.choices);
  }

  async admitted(): Promise<GenerationRequest> {
    // Only an admitted call makes the gateway fetch anything; a refused fetch gives the reservation back (a 400, charged nothing).
    await this.call.request.fetchImages(this.translations, this.images);
    return this.call.request;
  }

  /** One route's request, in the route's own protocol (the client's bytes, or a translation), held to the reserved output. */
  send(upstream: Upstream, upstreamModel: string, request: GenerationRequest): UpstreamCall {
    const passage = passageOf(request.protocol, upstream.provider.protocol);
    this.call.passage = passage;
    const body = request.bodyFor(passage, upstreamModel, this.maxOutput, upstream.provider.max_tokens_field);
    const forwarded = passage.same ? request.forwarded : undefined;
    return CHAT_ADAPTERS[passage.upstream].send(upstream, upstreamModel, body, request.stream, forwarded);
  }
}
