import { tokenCost } from '../../shared/billing/pricing.js';
import { textTokens } from '../../shared/billing/prompt-tokens.js';
import type { CatalogModel } from '../../shared/catalog/index.js';
import { GatewayError, isGatewayError } from '../../shared/errors.js';
import { authenticate, authenticateCached, discountOf } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { MeterChain } from '../../shared/generation/meter-chain.js';
import { admitAndSend, tryModels, type AdmittedDispatch } from '../../shared/generation/route-loop.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { sendEmbeddings } from '../../shared/providers/embeddings.js';
import {
  embeddingsAnswer,
  type EmbeddingAnswer,
  type EmbeddingRequest,
} from '../../shared/protocols/embeddings/codec.js';
import type { ChatProtocol } from '../../shared/protocols/canonical/types.js';
import type { CallState } from '../../shared/routing/fallback.js';
import { planModels } from '../../shared/routing/plan.js';
import type { Upstream } from '../../shared/providers/registry.js';
import type { UpstreamCall } from '../../shared/providers/upstream-call.js';
import { parseProviderPreferences } from '../../shared/routing/provider-preferences.js';
import { withDefaultModel } from '../../shared/routing/default-model.js';
import { embeddingsHit, fillEmbeddings, lookupEmbeddings } from '../../shared/generation/cached-embeddings.js';
import { parseCacheTtlHeader } from '../../shared/response-cache/ttl.js';
import { callTags } from '../../shared/usage/tags.js';
import { answerFailure } from '../http/answer-failure.js';
import { headerOf, sendJson, type Exchange } from '../http/exchange.js';
import type { RouteParams } from '../generation/surface.js';
import { readJsonBody } from '../middleware/read-json.js';
import type { EmbeddingSurface } from './surfaces.js';

/**
 * One embeddings call, for every embeddings surface, on the fast path beside generation: the six
 * steps (the reservation is the input's tokens by the model's tokenizer at its input price),
 * routing and fallback as for chat, the upstream in its own protocol (chat-completions-style
 * `/embeddings` or generateContent `:batchEmbedContents`), charged per input token — the upstream's
 * count where it reports one, the tokenizer's otherwise (recorded as estimated). Answers
 * everything itself, errors included, in the surface's protocol; never rejects.
 */
export function embeddingsHandler(services: GatewayServices, surface: EmbeddingSurface) {
  return (ex: Exchange, params: RouteParams): Promise<void> => answer(services, surface, ex, params);
}

async function answer(
  services: GatewayServices,
  surface: EmbeddingSurface,
  ex: Exchange,
  params: RouteParams,
): Promise<void> {
  const { req, res } = ex;
  let key: ApiKeyContext | undefined;
  // The meter of the attempt running now (a fallback model's attempt has its own).
  let chain: MeterChain | undefined;
  try {
    const credential = { secret: surface.credential(req), ip: ex.ip };
    const owner = (key = authenticateCached(services, credential) ?? (await authenticate(services, credential)));
    const tags = callTags(headerOf(req, 'x-service-tags'), key.tags);
    const cacheTtl = parseCacheTtlHeader(headerOf(req, 'x-service-cache-ttl'));
    chain = new MeterChain(services, owner, 'embeddings', surface.id, ex.requestId, ex.callId, tags);
    const body = await readJsonBody(req, services.config.http.bodyLimitBytes);
    const { provider, ...fields } = surface.id === 'embeddings' ? withDefaultModel(body.value, key) : body.value;
    const call = surface.parse(fields, params.model);
    const plan = await planModels(
      services.routing,
      key,
      call.model,
      'embeddings',
      parseProviderPreferences(provider, services.catalog),
    );
    const dispatch = new EmbeddingsDispatch(services, owner, res, call.request);
    // The response cache, once steps 1-4 have passed.
    const cached = { surface: surface.id, model: call.model, body: fields };
    const cache = await lookupEmbeddings(services, key, plan, cached, cacheTtl);
    res.setHeader('X-Service-Cache', cache.status);
    if (cache.hit) {
      dispatch.model(cache.hit.model);
      const hit = await embeddingsHit(services, key, chain.meter, cache.hit, (h) => dispatch.limitHeaders(h));
      sendJson(res, 200, hit.body);
      await hit.settled;
      return;
    }
    const { routed, model, meter } = await tryModels(
      plan.models,
      chain,
      dispatch.state,
      (model, attemptMeter) => admitAndSend(services, attemptMeter, model, plan.preferences, dispatch),
      dispatch,
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
    sendJson(res, 200, answered);
    await settled;
    const usage = { inputTokens, outputTokens: 0, cachedTokens: 0 };
    if (cache.digest)
      await fillEmbeddings(services, key, cache, model, answered, usage, result.inputTokens === undefined);
  } catch (err) {
    await chain?.meter.finish({
      statusCode: isGatewayError(err) ? err.status : 500,
      errorCode: isGatewayError(err) ? err.code : 'internal_error',
    });
    await answerFailure(services, ex, key, err, surface.protocol);
  } finally {
    await chain?.meter.close();
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
    private readonly key: ApiKeyContext,
    private readonly res: Exchange['res'],
    private readonly request: EmbeddingRequest,
  ) {}

  price(model: CatalogModel): number {
    this.tokens = textTokens(this.request.inputs, model);
    const usage = { inputTokens: this.tokens, outputTokens: 0, cachedTokens: 0 };
    return tokenCost(model, usage, discountOf(this.services, this.key));
  }

  limitHeaders(headers: Record<string, string>): void {
    for (const name in headers) this.res.setHeader(name, headers[name]!);
  }

  admitted(): EmbeddingRequest {
    return this.request;
  }

  send(upstream: Upstream, upstreamModel: string, request: EmbeddingRequest): UpstreamCall {
    return sendEmbeddings(upstream, upstreamModel, request);
  }

  model(model: CatalogModel): void {
    this.res.setHeader('X-Service-Model', model.id);
  }
}
