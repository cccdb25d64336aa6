import { affordableOutput } from '../../shared/billing/affordable.js';
import { tokenCost } from '../../shared/billing/pricing.js';
import { GatewayError, isGatewayError } from '../../shared/errors.js';
import { CallMeter } from '../../shared/gateway/call-meter.js';
import { authenticate, authenticateCached, discountOf } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { CHAT_ADAPTERS } from '../../shared/providers/chat-adapters.js';
import { GenerationRequest } from '../../shared/providers/generation-request.js';
import type { Upstream } from '../../shared/providers/registry.js';
import type { StreamScanner } from '../../shared/providers/stream-scanner.js';
import { TranslatingScanner } from '../../shared/providers/translating-scanner.js';
import type { UpstreamCall } from '../../shared/providers/upstream-call.js';
import { CLIENT_CODECS, CODECS } from '../../shared/protocols/codecs.js';
import type { ChatProtocol, ClientProtocol } from '../../shared/protocols/canonical/types.js';
import { sendWithFallback, type CallState, type RoutedResponse } from '../../shared/routing/fallback.js';
import { withDefaultModel } from '../../shared/routing/default-model.js';
import { planModels, routesFor, type RouteChoice } from '../../shared/routing/plan.js';
import { chooseTemplate } from '../../shared/routing/prompt-template.js';
import { parseProviderPreferences } from '../../shared/routing/provider-preferences.js';
import { isRetryableStatus } from '../../shared/providers/upstream-errors.js';
import { logContent, streamCollector } from '../../shared/datasets/content-log.js';
import { sessionIdOf } from '../../shared/usage/session-id.js';
import { callTags } from '../../shared/usage/tags.js';
import { streamErrorEvent } from '../errors/render.js';
import { answerFailure } from '../http/answer-failure.js';
import { headerOf, type Exchange } from '../http/exchange.js';
import { readJsonBody } from '../middleware/read-json.js';
import { answerJson } from './answer-json.js';
import { fetchInlineImage } from './inline-images.js';
import { relayStream } from './relay-stream.js';
import type { RouteParams, Surface } from './surface.js';
import { passUpstreamError } from './upstream-error.js';

export type GenerationHandler = (ex: Exchange, params: RouteParams) => Promise<void>;

/**
 * The one generation handler, built per surface (chat completions, Messages, generateContent):
 * the six-step pipeline, routing and fallback, metering and charging, the relay. Answers
 * everything itself, errors included, in the surface's protocol; never rejects.
 */
export function generationHandler(services: GatewayServices, surface: Surface): GenerationHandler {
  const limit = services.config.http.bodyLimitBytes;
  return (ex, params) => answer(services, surface, limit, ex, params);
}

/** Sends one route's request in the route's own protocol (the client's bytes, or a translation). */
function sendRoute(upstream: Upstream, upstreamModel: string, call: { request: GenerationRequest; maxOutput: number }): UpstreamCall {
  const protocol = upstream.provider.protocol as ChatProtocol;
  const { request } = call;
  const forwarded = protocol === request.protocol ? request.forwarded : undefined;
  return CHAT_ADAPTERS[protocol].send(upstream, upstreamModel, request.bodyFor(protocol, upstreamModel, call.maxOutput), request.stream, forwarded);
}

// The hottest path of the gateway: it waits only where it must (the body, the admission, the
// upstream, the settlement), and builds no object as `{ ...a, b }` (see shared/routing/fallback.ts).
async function answer(services: GatewayServices, surface: Surface, limit: number, ex: Exchange, params: RouteParams): Promise<void> {
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
    const credential = { secret: surface.credential(req), ip: ex.ip };
    // A key sent the way another surface takes it is missing here: the message says where it goes.
    if (!credential.secret) throw new GatewayError('invalid_api_key', 401, `missing API key: ${surface.credentialHint}`);
    key = authenticateCached(services, credential) ?? (await authenticate(services, credential));
    meter = new CallMeter(services, key, 'chat/completions', ex.requestId, ex.callId, callTags(headerOf(req, 'x-service-tags'), key.tags));
    meter.surface = surface.id;
    const body = await readJsonBody(req, limit);
    if (surface.modelInBody) body.value = withDefaultModel(body.value, key);
    const call = surface.parse(body.value, params);
    const routing = services.routing;
    const prefs = parseProviderPreferences(call.provider, services.catalog);
    const plan = await planModels(routing, key, call.model, 'chat/completions', prefs);
    const sessionId = sessionIdOf(headerOf(req, 'x-session-id'));
    const template = await chooseTemplate(routing, key, {
      model: call.model,
      sessionId: sessionId ?? undefined,
      varsHeader: headerOf(req, 'x-service-template-vars'),
      now: services.clock.now(),
    });
    const stream = call.stream;
    const request = new GenerationRequest(surface.protocol, call.body, body.raw as Buffer | undefined, stream, surface.forwardedHeaders(req));
    if (call.provider !== undefined || template) {
      // The routing field is the gateway's, and a template changes the prompt: re-serialised.
      let forwarded: Record<string, unknown> = Object.assign({}, call.body);
      delete forwarded.provider;
      if (template) forwarded = surface.withSystemPrompt(forwarded, template.text);
      request.replaceBody(forwarded);
    }
    // Each model of the plan is admitted, metered and charged on its own (`<id>`, `<id>-fb1`, …).
    for (let attempt = 0; ; attempt++) {
      const model = plan.models[attempt]!;
      const last = attempt === plan.models.length - 1;
      if (attempt > 0) meter = new CallMeter(services, key, 'chat/completions', `${ex.requestId}-fb${attempt}`, `${ex.callId}-fb${attempt}`, meter.tags);
      meter.templateVersionId = template?.versionId ?? null;
      meter.sessionId = sessionId;
      meter.surface = surface.id;
      const maxOutput = call.maxTokens ?? model.max_output_tokens;
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
      await request.prepare(protocolsOf(routes, surface.protocol), maxOutput, (url, field) => fetchInlineImage(url, field));
      // The prompt counted by the model's tokenizer bounds money and TPM alike (see prompt-tokens.ts).
      const promptTokens = call.promptTokens(model, body.bytes);
      const discount = discountOf(services, key);
      const maxCost = tokenCost(model, { inputTokens: promptTokens, outputTokens: maxOutput, cachedTokens: 0 }, discount);
      const limitHeaders = await meter.admit(model, maxCost, promptTokens + maxOutput).catch((err: unknown) => {
        throw affordableOutput(err, model, promptTokens, maxOutput, discount);
      });
      for (const name in limitHeaders) res.setHeader(name, limitHeaders[name]!);

      let routed: RoutedResponse;
      try {
        routed = await sendWithFallback(routing.health, routes, stream ? 'headers' : 'whole', sendRoute, { request, maxOutput }, state);
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
        const collected = keep ? streamCollector() : undefined;
        await relayStream(res, meter, routed, {
          promptBytes: body.bytes,
          scanner: scannerFor(surface.protocol, routed, model.id, call.clientWantsUsage),
          errorEvent: (code, message) => streamErrorEvent(surface.protocol, code, message),
          clientGone: () => state.clientGone,
          capture: collected?.push,
        });
        if (keep && collected) keep({ stream: true, content: collected.text() });
      } else {
        await answerJson(res, meter, routed, surface.protocol, body.bytes, model.id, keep);
      }
      return;
    }
  } catch (err) {
    if (state.clientGone) {
      // Nothing was relayed, so nothing is charged; the record says who ended the call.
      await meter?.finish({ statusCode: 499, errorCode: 'client_closed' });
    } else {
      await meter?.finish({ statusCode: isGatewayError(err) ? err.status : 500, errorCode: isGatewayError(err) ? err.code : 'internal_error' });
      await answerFailure(services, ex, key, err, surface.protocol);
    }
  } finally {
    res.off('close', onClose);
    await meter?.close();
  }
}

function protocolsOf(routes: readonly { upstream: Upstream }[], own: ClientProtocol): Set<ChatProtocol> {
  const protocols = new Set<ChatProtocol>();
  for (const route of routes) if (route.upstream.provider.protocol !== own) protocols.add(route.upstream.provider.protocol as ChatProtocol);
  return protocols;
}

/** Same protocol: the bytes pass through its scanner. Another: decoded and re-encoded chunk by chunk. */
function scannerFor(protocol: ClientProtocol, routed: RoutedResponse, modelId: string, clientWantsUsage: boolean): StreamScanner {
  const upstream = routed.upstream.provider.protocol as ChatProtocol;
  if (upstream === protocol) return CHAT_ADAPTERS[upstream].scanner(clientWantsUsage);
  return new TranslatingScanner(CODECS[upstream].streamDecoder(), CLIENT_CODECS[protocol].streamEncoder({ model: modelId, clientWantsUsage }));
}

const clientClosed = () => new Error('the client closed the connection');

// The next model is tried when this one could not be served at all: no available account, its
// upstreams unreachable, timing out, failing or rate-limited (spec behaviours 2-3).
const FALLBACK_CODES = new Set(['upstream_error', 'upstream_timeout', 'upstream_rate_limited', 'upstream_unavailable']);
function movesToNextModel(err: unknown): boolean {
  return isGatewayError(err) && FALLBACK_CODES.has(err.code);
}
