import { tokenCost } from '../billing/pricing.js';
import { textTokens } from '../billing/prompt-tokens.js';
import type { CatalogModel } from '../catalog/index.js';
import { GatewayError, isGatewayError } from '../errors.js';
import type { GatewayServices } from '../gateway/services.js';
import { sendEmbeddings } from '../providers/embeddings.js';
import type { Upstream } from '../providers/registry.js';
import type { UpstreamCall } from '../providers/upstream-call.js';
import type { ChatProtocol } from '../protocols/canonical/types.js';
import { embeddingsAnswer, type EmbeddingAnswer, type EmbeddingRequest } from '../protocols/embeddings/codec.js';
import type { EmbeddingCall } from '../protocols/embeddings/openai-call.js';
import type { CallState } from '../routing/fallback.js';
import { planModels } from '../routing/plan.js';
import { parseProviderPreferences } from '../routing/provider-preferences.js';
import { discountOfCall } from './call-meter.js';
import type { MeterChain } from './meter-chain.js';
import { admitAndSend, tryModels, type AdmittedDispatch } from './route-loop.js';
import { embeddingsHit, fillEmbeddings, lookupEmbeddings } from './cached-embeddings.js';
import type { CacheStatus } from '../response-cache/metrics.js';

/** Where an embeddings call's answer goes: the HTTP answer (api/embeddings/handler.ts) or a batch line. */
export interface EmbeddingsSink {
  /** The rate-limit headers of each admission. */
  limitHeaders(headers: Record<string, string>): void;
  /** The model whose answer (or refusal) stands. */
  model(model: CatalogModel): void;
  /** The answer in the client's protocol, once its settlement is written; `inputTokens` charged. */
  answer(body: string, inputTokens: number): void | Promise<void>;
  /** What the response cache made of the call (HTTP answers carry it as `X-Service-Cache`). */
  cacheStatus?(status: CacheStatus): void;
}

/** A call that may use the response cache (HTTP calls; batch lines are never cached): its key's parts and the header's TTL. */
export interface EmbeddingsCacheRequest {
  surface: string;
  body: Record<string, unknown>;
  headerTtl: number | undefined;
}

/**
 * One embeddings call, for every embeddings surface and for batch lines: step 4 (the plan), the
 * reservation (the input's tokens by the model's tokenizer at its input price), routing and
 * fallback as for chat, the upstream in its own protocol (chat-completions-style `/embeddings` or
 * generateContent `:batchEmbedContents`), charged per input token — the upstream's count where it
 * reports one, the tokenizer's otherwise (recorded as estimated). Throws the call's failure; the
 * caller records it on `chain.meter` and answers it.
 */
export async function runEmbeddings(
  services: GatewayServices,
  chain: MeterChain,
  call: EmbeddingCall,
  provider: unknown,
  sink: EmbeddingsSink,
  cacheRequest?: EmbeddingsCacheRequest,
): Promise<void> {
  const plan = await planModels(
    services.routing,
    chain.key,
    call.model,
    'embeddings',
    parseProviderPreferences(provider, services.catalog),
  );
  const dispatch = new EmbeddingsDispatch(services, chain, sink, call.request);
  // The response cache, once steps 1-4 have passed.
  const cache = cacheRequest
    ? await lookupEmbeddings(
        services,
        chain.key,
        plan,
        { surface: cacheRequest.surface, model: call.model, body: cacheRequest.body },
        cacheRequest.headerTtl,
      )
    : undefined;
  if (cache) sink.cacheStatus?.(cache.status);
  if (cache?.hit) {
    sink.model(cache.hit.model);
    const hit = await embeddingsHit(services, chain.key, chain.meter, cache.hit, (h) => sink.limitHeaders(h));
    const delivered = sink.answer(hit.body, cache.hit.entry.usage.inputTokens);
    if (delivered) await delivered;
    await hit.settled;
    return;
  }
  const { routed, model, meter } = await tryModels(
    plan.models,
    chain,
    dispatch.state,
    (model, attemptMeter) => admitAndSend(services, attemptMeter, model, plan.preferences, dispatch),
    sink,
  );
  let result: EmbeddingAnswer;
  try {
    result = embeddingsAnswer(
      routed.upstream.provider.protocol as ChatProtocol,
      JSON.parse(routed.response.received().toString('utf8')),
      call.request.inputs.length,
    );
  } catch (err) {
    throw isGatewayError(err)
      ? err
      : new GatewayError('upstream_error', 502, 'the upstream provider sent an invalid embeddings response');
  }
  const inputTokens = result.inputTokens ?? dispatch.tokens;
  const settled = meter.finish({
    statusCode: 200,
    provider: routed.upstream.provider.id,
    upstreamModel: routed.upstreamModel,
    account: routed.account,
    usage: { inputTokens, outputTokens: 0, cachedTokens: 0 },
    usageEstimated: result.inputTokens === undefined,
  });
  await meter.sent();
  const answered = JSON.stringify(call.render(result, inputTokens, model.id));
  const delivered = sink.answer(answered, inputTokens);
  if (delivered) await delivered;
  await settled;
  if (cache?.digest) {
    const usage = { inputTokens, outputTokens: 0, cachedTokens: 0 };
    await fillEmbeddings(services, chain.key, cache, model, answered, usage, result.inputTokens === undefined);
  }
}

/** How an embeddings call's attempts are sent: reserved for the input's tokens at the model's input price, the whole answer decides. */
class EmbeddingsDispatch implements AdmittedDispatch<EmbeddingRequest> {
  readonly state: CallState = { upstream: undefined, clientGone: false };
  readonly until = 'whole';
  /** The input's tokens by the tokenizer of the model priced last (the charge when the upstream reports none). */
  tokens = 0;

  constructor(
    private readonly services: GatewayServices,
    private readonly chain: MeterChain,
    private readonly sink: EmbeddingsSink,
    private readonly request: EmbeddingRequest,
  ) {}

  price(model: CatalogModel): number {
    this.tokens = textTokens(this.request.inputs, model);
    const usage = { inputTokens: this.tokens, outputTokens: 0, cachedTokens: 0 };
    return tokenCost(model, usage, discountOfCall(this.services, this.chain, model));
  }

  limitHeaders(headers: Record<string, string>): void {
    this.sink.limitHeaders(headers);
  }

  admitted(): EmbeddingRequest {
    return this.request;
  }

  send(upstream: Upstream, upstreamModel: string, request: EmbeddingRequest): UpstreamCall {
    return sendEmbeddings(upstream, upstreamModel, request);
  }
}
