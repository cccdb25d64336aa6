import type { Context } from 'koa';
import { tokenCost } from '../../shared/billing/pricing.js';
import { textTokens } from '../../shared/billing/prompt-tokens.js';
import { GatewayError, isGatewayError } from '../../shared/errors.js';
import { CallMeter } from '../../shared/gateway/call-meter.js';
import { discountOf } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { sendEmbeddings } from '../../shared/providers/embeddings.js';
import { isRetryableStatus } from '../../shared/providers/upstream-errors.js';
import { embeddingsAnswer, type EmbeddingAnswer } from '../../shared/protocols/embeddings/codec.js';
import type { ChatProtocol } from '../../shared/protocols/canonical/types.js';
import { sendWithFallback, type CallState, type RoutedResponse } from '../../shared/routing/fallback.js';
import { planModels, routesFor, type RouteChoice } from '../../shared/routing/plan.js';
import { parseProviderPreferences } from '../../shared/routing/provider-preferences.js';
import { withDefaultModel } from '../../shared/routing/default-model.js';
import { callTags } from '../../shared/usage/tags.js';
import { passUpstreamError } from '../generation/upstream-error.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateRequest } from '../openai/credential.js';
import type { EmbeddingSurface } from './surfaces.js';

// As for chat: the next model is tried when this one could not be served at all.
const FALLBACK_CODES = new Set(['upstream_error', 'upstream_timeout', 'upstream_rate_limited', 'upstream_unavailable']);
const movesOn = (err: unknown) => isGatewayError(err) && FALLBACK_CODES.has(err.code);

/**
 * One embeddings call, for every embeddings surface: the six steps (the reservation is the input's
 * tokens by the model's tokenizer at its input price), routing and fallback as for chat, the
 * upstream in its own protocol (chat-completions-style `/embeddings` or generateContent
 * `:batchEmbedContents`), charged per input token — the upstream's count where it reports one, the
 * tokenizer's otherwise (recorded as estimated).
 */
export function embeddingsHandler(services: GatewayServices, surface: EmbeddingSurface) {
  return async (ctx: Context, pathModel?: string): Promise<void> => {
    const key = await authenticateRequest(ctx, services, { secret: surface.credential(ctx), ip: ctx.ip });
    let meter = new CallMeter(services, key, 'embeddings', ctx.state.requestId as string, ctx.state.callId as string, callTags(ctx.get('x-service-tags') || undefined, key.tags));
    meter.surface = surface.id;
    const state: CallState = { upstream: undefined, clientGone: false };
    try {
      const body = await readJsonObject(ctx, services.config.http.bodyLimitBytes);
      const { provider, ...fields } = surface.id === 'embeddings' ? withDefaultModel(body.value, key) : body.value;
      const call = surface.parse(fields, pathModel);
      const plan = await planModels(services.routing, key, call.model, 'embeddings', parseProviderPreferences(provider, services.catalog));
      for (let attempt = 0; ; attempt++) {
        const model = plan.models[attempt]!;
        const last = attempt === plan.models.length - 1;
        if (attempt > 0) {
          meter = new CallMeter(services, key, 'embeddings', `${ctx.state.requestId}-fb${attempt}`, `${ctx.state.callId}-fb${attempt}`, meter.tags);
          meter.surface = surface.id;
        }
        const tokens = textTokens(call.request.inputs, model);
        let routes: RouteChoice[];
        let routed: RoutedResponse;
        try {
          routes = await routesFor(services.routing, model, plan.preferences);
          ctx.set(await meter.admit(model, tokenCost(model, { inputTokens: tokens, outputTokens: 0, cachedTokens: 0 }, discountOf(services, key)), tokens));
          routed = await sendWithFallback(services.routing.health, routes, 'whole', sendEmbeddings, call.request, state);
        } catch (err) {
          if (last || !movesOn(err)) throw err;
          await meter.finish({ statusCode: (err as GatewayError).status, errorCode: (err as GatewayError).code });
          continue;
        }
        const status = routed.response.statusCode;
        if (status !== 200 && !last && isRetryableStatus(status)) {
          await routed.response.discard();
          await meter.finish({ statusCode: status, errorCode: 'upstream_error', provider: routed.upstream.provider.id, account: routed.account });
          continue;
        }
        ctx.set('X-Service-Model', model.id);
        if (status !== 200) await passUpstreamError(routed);
        let answer: EmbeddingAnswer;
        try {
          answer = embeddingsAnswer(routed.upstream.provider.protocol as ChatProtocol, JSON.parse(routed.response.received().toString('utf8')), call.request.inputs.length);
        } catch (err) {
          throw isGatewayError(err) ? err : new GatewayError('upstream_error', 502, 'the upstream provider sent an invalid embeddings response');
        }
        const inputTokens = answer.inputTokens ?? tokens;
        await meter.finish({ statusCode: 200, provider: routed.upstream.provider.id, account: routed.account, usage: { inputTokens, outputTokens: 0, cachedTokens: 0 }, usageEstimated: answer.inputTokens === undefined });
        ctx.body = call.render(answer, inputTokens, model.id);
        return;
      }
    } catch (err) {
      await meter.finish({ statusCode: isGatewayError(err) ? err.status : 500, errorCode: isGatewayError(err) ? err.code : 'internal_error' });
      throw err;
    } finally {
      await meter.close();
    }
  };
}
