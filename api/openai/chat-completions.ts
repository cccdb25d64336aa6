import { affordableOutput } from '../../shared/billing/affordable.js';
import { promptTokenBound } from '../../shared/billing/prompt-tokens.js';
import { tokenCost } from '../../shared/billing/pricing.js';
import { isGatewayError, type GatewayError } from '../../shared/errors.js';
import { CallMeter } from '../../shared/gateway/call-meter.js';
import { authenticate, authenticateCached, discountOf } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { chatRequestSchema, maxOutputTokens } from '../../shared/protocols/openai/chat-request.js';
import { sendChatCompletion } from '../../shared/providers/openai/chat.js';
import { sendWithFallback, type CallState, type RoutedResponse } from '../../shared/routing/fallback.js';
import { withDefaultModel } from '../../shared/routing/default-model.js';
import { planModels, routesFor } from '../../shared/routing/plan.js';
import { chooseTemplate } from '../../shared/routing/prompt-template.js';
import { parseProviderPreferences } from '../../shared/routing/provider-preferences.js';
import { prependSystemPrompt } from '../../shared/protocols/openai/system-prompt.js';
import { isRetryableStatus } from '../../shared/providers/upstream-errors.js';
import { logContent, streamCollector } from '../../shared/datasets/content-log.js';
import { sessionIdOf } from '../../shared/usage/session-id.js';
import { callTags } from '../../shared/usage/tags.js';
import { parseOrThrow } from '../../shared/validation.js';
import { answerFailure } from '../http/answer-failure.js';
import { headerOf, type Exchange } from '../http/exchange.js';
import { readJsonBody } from '../middleware/read-json.js';
import { answerChatJson } from './chat-json.js';
import { relayChatStream } from './chat-stream.js';
import { bearerSecret } from './credential.js';
import { passUpstreamError } from './upstream-error.js';

export const CHAT_COMPLETIONS_PATH = '/v1/chat/completions';

/** POST /v1/chat/completions. Answers everything itself, errors included; never rejects. */
export function chatCompletions(services: GatewayServices): (ex: Exchange) => Promise<void> {
  const limit = services.config.http.bodyLimitBytes;
  return (ex) => answerChat(services, limit, ex);
}

// The hottest path of the gateway: it waits only where it must (the body, the admission, the
// upstream, the settlement), and builds no object as `{ ...a, b }` (see shared/routing/fallback.ts).
async function answerChat(services: GatewayServices, limit: number, ex: Exchange): Promise<void> {
  const { req, res } = ex;
  const state: CallState = { upstream: undefined, clientGone: false };
  // A client that goes away at any point aborts the upstream request (and with it the relay).
  const onClose = () => {
    if (res.writableEnded) return;
    state.clientGone = true;
    state.upstream?.abort(clientClosed());
  };
  res.once('close', onClose);
  let key: ApiKeyContext | undefined;
  let meter: CallMeter | undefined;
  try {
    const credential = { secret: bearerSecret(headerOf(req, 'authorization')), ip: ex.ip };
    key = authenticateCached(services, credential) ?? (await authenticate(services, credential));
    meter = new CallMeter(services, key, 'chat/completions', ex.requestId, ex.callId, callTags(headerOf(req, 'x-service-tags'), key.tags));
    const body = await readJsonBody(req, limit);
    body.value = withDefaultModel(body.value, key);
    const chat = parseOrThrow(chatRequestSchema, body.value);
    const routing = services.routing;
    const prefs = parseProviderPreferences(chat.provider, services.catalog);
    const plan = await planModels(routing, key, chat.model, 'chat/completions', prefs);
    const sessionId = sessionIdOf(headerOf(req, 'x-session-id'));
    const template = await chooseTemplate(routing, key, {
      model: chat.model,
      sessionId: sessionId ?? undefined,
      varsHeader: headerOf(req, 'x-service-template-vars'),
      now: services.clock.now(),
    });
    const stream = chat.stream === true;
    const request = { body: body.value, raw: body.raw as Buffer | undefined, stream };
    if (prefs !== undefined || chat.provider !== undefined || template) {
      // The routing fields are the gateway's, and a template changes the messages: re-serialised.
      const forwarded: Record<string, unknown> = Object.assign({}, body.value);
      delete forwarded.provider;
      if (template) forwarded.messages = prependSystemPrompt(chat.messages, template.text);
      request.body = forwarded;
      request.raw = undefined;
    }
    // Each model of the plan is admitted, metered and charged on its own (`<id>`, `<id>-fb1`, …).
    for (let attempt = 0; ; attempt++) {
      const model = plan.models[attempt]!;
      const last = attempt === plan.models.length - 1;
      if (attempt > 0) meter = new CallMeter(services, key, 'chat/completions', `${ex.requestId}-fb${attempt}`, `${ex.callId}-fb${attempt}`, meter.tags);
      meter.templateVersionId = template?.versionId ?? null;
      meter.sessionId = sessionId;
      const maxOutput = maxOutputTokens(chat, model.max_output_tokens);
      // The prompt counted by the model's tokenizer bounds money and TPM alike (see prompt-tokens.ts).
      const promptTokens = promptTokenBound(chat, model, body.bytes);
      const discount = discountOf(services, key);
      const maxCost = tokenCost(model, { inputTokens: promptTokens, outputTokens: maxOutput, cachedTokens: 0 }, discount);
      const limitHeaders = await meter.admit(model, maxCost, promptTokens + maxOutput).catch((err: unknown) => {
        throw affordableOutput(err, model, promptTokens, maxOutput, discount);
      });
      for (const name in limitHeaders) res.setHeader(name, limitHeaders[name]!);

      let routed: RoutedResponse;
      try {
        routed = await sendWithFallback(routing.health, await routesFor(routing, model, plan.preferences), stream ? 'headers' : 'whole', sendChatCompletion, request, state);
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
      res.setHeader('X-Service-Model', model.id);
      if (status !== 200) return await passUpstreamError(routed);
      // Content logging (account settings): prompt and completion kept in object storage, after the answer.
      const keep = key.owner.logContent
        ? (response: unknown) => logContent(services.storage, key!.userId, meter!.requestId, request.body, response, (err) => services.log.warn({ err: err.message }, 'content log not written'))
        : undefined;
      if (stream) {
        routing.latency.record(model.id, meter.elapsedMs());
        const clientWantsUsage = chat.stream_options?.include_usage === true;
        const collected = keep ? streamCollector() : undefined;
        await relayChatStream(res, meter, routed, { promptBytes: body.bytes, clientWantsUsage, clientGone: () => state.clientGone, capture: collected?.push });
        if (keep && collected) keep({ stream: true, content: collected.text() });
      } else {
        await answerChatJson(res, meter, routed, body.bytes, model.id, keep);
      }
      return;
    }
  } catch (err) {
    if (state.clientGone) {
      // Nothing was relayed, so nothing is charged; the record says who ended the call.
      await meter?.finish({ statusCode: 499, errorCode: 'client_closed' });
    } else {
      await meter?.finish({ statusCode: isGatewayError(err) ? err.status : 500, errorCode: isGatewayError(err) ? err.code : 'internal_error' });
      await answerFailure(services, ex, key, err);
    }
  } finally {
    res.off('close', onClose);
    await meter?.close();
  }
}

const clientClosed = () => new Error('the client closed the connection');

// The next model is tried when this one could not be served at all: no available account, its
// upstreams unreachable, timing out, failing or rate-limited (spec behaviours 2-3).
const FALLBACK_CODES = new Set(['upstream_error', 'upstream_timeout', 'upstream_rate_limited', 'upstream_unavailable']);
function movesToNextModel(err: unknown): boolean {
  return isGatewayError(err) && FALLBACK_CODES.has(err.code);
}
