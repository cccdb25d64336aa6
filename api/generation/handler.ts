import type { CatalogModel } from '../../shared/catalog/index.js';
import { GatewayError, isGatewayError } from '../../shared/errors.js';
import { CallMeter } from '../../shared/gateway/call-meter.js';
import { authenticate, authenticateCached } from '../../shared/gateway/pipeline.js';
import { routeGeneration } from '../../shared/gateway/route-generation.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { CHAT_ADAPTERS } from '../../shared/providers/chat-adapters.js';
import { GenerationRequest } from '../../shared/providers/generation-request.js';
import type { StreamScanner } from '../../shared/providers/stream-scanner.js';
import { TranslatingScanner } from '../../shared/providers/translating-scanner.js';
import { CLIENT_CODECS, CODECS } from '../../shared/protocols/codecs.js';
import type { ChatProtocol, ClientProtocol } from '../../shared/protocols/canonical/types.js';
import type { CallState, RoutedResponse } from '../../shared/routing/fallback.js';
import { withDefaultModel } from '../../shared/routing/default-model.js';
import { planModels } from '../../shared/routing/plan.js';
import { chooseTemplate } from '../../shared/routing/prompt-template.js';
import { parseProviderPreferences } from '../../shared/routing/provider-preferences.js';
import { logContent, streamCollector } from '../../shared/datasets/content-log.js';
import { sessionIdOf } from '../../shared/usage/session-id.js';
import { callTags } from '../../shared/usage/tags.js';
import { streamErrorEvent } from '../errors/render.js';
import { answerFailure } from '../http/answer-failure.js';
import { headerOf, type Exchange } from '../http/exchange.js';
import { readJsonBody, type JsonBody } from '../middleware/read-json.js';
import { answerJson } from './answer-json.js';
import { relayStream } from './relay-stream.js';
import type { RouteParams, Surface } from './surface.js';

export type GenerationHandler = (ex: Exchange, params: RouteParams) => Promise<void>;

/**
 * The one generation handler, built per surface (chat completions, Responses, Messages,
 * generateContent): the six-step pipeline, routing and fallback (shared/gateway/route-generation.ts),
 * metering and charging, the relay. Answers everything itself, errors included, in the surface's
 * protocol; never rejects.
 */
export function generationHandler(services: GatewayServices, surface: Surface): GenerationHandler {
  const limit = services.config.http.bodyLimitBytes;
  return (ex, params) => answer(services, surface, limit, ex, params);
}

/** Steps 1-3 and the body, then the call. */
async function answer(
  services: GatewayServices,
  surface: Surface,
  limit: number,
  ex: Exchange,
  params: RouteParams,
): Promise<void> {
  const { req } = ex;
  let key: ApiKeyContext | undefined;
  let body: JsonBody;
  try {
    const credential = { secret: surface.credential(req), ip: ex.ip };
    // A key sent the way another surface takes it is missing here: the message says where it goes.
    if (!credential.secret)
      throw new GatewayError('invalid_api_key', 401, `missing API key: ${surface.credentialHint}`);
    key = authenticateCached(services, credential) ?? (await authenticate(services, credential));
    body = await readJsonBody(req, limit);
  } catch (err) {
    if (key) await callMeter(services, surface, key, ex.requestId, ex.callId, [...key.tags], null).finish(failure(err));
    await answerFailure(services, ex, key, err, surface.protocol);
    return;
  }
  await serveGeneration(services, surface, ex, key, body, params);
}

function callMeter(
  services: GatewayServices,
  surface: Surface,
  key: ApiKeyContext,
  requestId: string,
  callId: string,
  tags: string[],
  sessionId: string | null,
): CallMeter {
  const meter = new CallMeter(services, key, 'chat/completions', requestId, callId, tags);
  meter.surface = surface.id;
  meter.sessionId = sessionId;
  return meter;
}

const failure = (err: unknown) => ({
  statusCode: isGatewayError(err) ? err.status : 500,
  errorCode: isGatewayError(err) ? err.code : 'internal_error',
});

export interface ServeOptions {
  /** The surface id recorded on the usage record, when the call came through another (the private protocol). */
  surfaceId?: string;
  /** Sees every relayed stream chunk (the private protocol keeps the result). */
  capture?: (chunk: Buffer) => void;
  /** Learns why a call that was answered with an error failed. */
  onFailure?: (err: unknown) => void;
  /** Runs before a complete stream's end marker goes out. */
  beforeStreamEnd?: () => Promise<void>;
}

/**
 * A generation call whose key is authenticated (steps 1-3) and whose body is read: steps 4-6,
 * routing, the upstream, the answer. The hottest path of the gateway: it waits only where it must
 * (the admission, the upstream, the settlement), and builds no object as `{ ...a, b }` (see
 * shared/routing/fallback.ts). Answers everything itself; never rejects.
 */
export async function serveGeneration(
  services: GatewayServices,
  surface: Surface,
  ex: Exchange,
  key: ApiKeyContext,
  body: JsonBody,
  params: RouteParams,
  options?: ServeOptions,
): Promise<void> {
  const { req, res } = ex;
  const state: CallState = { upstream: undefined, clientGone: false };
  // A client that goes away at any point aborts the upstream request (and with it the relay).
  const onClose = () => {
    if (res.writableEnded) return;
    state.clientGone = true;
    state.upstream?.abort(clientClosed());
  };
  res.once('close', onClose);
  let tags: string[];
  try {
    tags = callTags(headerOf(req, 'x-service-tags'), key.tags);
  } catch (err) {
    res.off('close', onClose);
    await answerFailure(services, ex, key, err, surface.protocol);
    return;
  }
  const sessionId = sessionIdOf(headerOf(req, 'x-session-id'));
  let templateVersionId: string | null = null;
  const newMeter = (requestId: string, callId: string) => {
    const m = callMeter(services, surface, key, requestId, callId, tags, sessionId);
    if (options?.surfaceId) m.surface = options.surfaceId;
    m.templateVersionId = templateVersionId;
    return m;
  };
  let meter = newMeter(ex.requestId, ex.callId);
  try {
    if (surface.modelInBody) body.value = withDefaultModel(body.value, key);
    const call = surface.parse(body.value, params);
    const routing = services.routing;
    const prefs = parseProviderPreferences(call.provider, services.catalog);
    const plan = await planModels(routing, key, call.model, 'chat/completions', prefs);
    const template = await chooseTemplate(routing, key, {
      model: call.model,
      sessionId: sessionId ?? undefined,
      varsHeader: headerOf(req, 'x-service-template-vars'),
      now: services.clock.now(),
    });
    templateVersionId = template?.versionId ?? null;
    meter.templateVersionId = templateVersionId;
    const stream = call.stream;
    const request = new GenerationRequest(
      surface.protocol,
      call.body,
      body.raw as Buffer | undefined,
      stream,
      surface.forwardedHeaders(req),
    );
    if (call.provider !== undefined || template) {
      // The routing field is the gateway's, and a template changes the prompt: re-serialised.
      let forwarded: Record<string, unknown> = Object.assign({}, call.body);
      delete forwarded.provider;
      if (template) forwarded = surface.withSystemPrompt(forwarded, template.text);
      request.replaceBody(forwarded);
    }
    const attempts = {
      key,
      plan,
      request,
      maxTokens: call.maxTokens,
      promptTokens: (model: CatalogModel) => call.promptTokens(model, body.bytes),
      meter,
      nextMeter: (attempt: number) => newMeter(`${ex.requestId}-fb${attempt}`, `${ex.callId}-fb${attempt}`),
      state,
      onLimitHeaders: (headers: Record<string, string>) => {
        for (const name in headers) res.setHeader(name, headers[name]!);
      },
      onModel: (model: CatalogModel) => res.setHeader('X-Service-Model', model.id),
      images: services.config.imageFetch,
    };
    let routed: RoutedResponse;
    let model: CatalogModel;
    try {
      ({ routed, model } = await routeGeneration(services, attempts));
    } finally {
      meter = attempts.meter; // the attempt that ran last is the one to finish
    }
    const metered = meter;
    // Content logging (account settings): prompt and completion kept in object storage, after the answer.
    const keep = key.owner.logContent
      ? (response: unknown) =>
          logContent(services.storage, key.userId, metered.requestId, request.body, response, (err) =>
            services.log.warn({ err: err.message }, 'content log not written'),
          )
      : undefined;
    if (stream) {
      routing.latency.record(model.id, metered.elapsedMs());
      const collected = keep ? streamCollector() : undefined;
      const capture =
        collected && options?.capture
          ? (chunk: Buffer) => (collected.push(chunk), options.capture!(chunk))
          : (collected?.push ?? options?.capture);
      await relayStream(res, metered, routed, {
        promptBytes: body.bytes,
        scanner: scannerFor(surface.protocol, routed, model.id, call.clientWantsUsage),
        errorEvent: (code, message) => streamErrorEvent(surface.protocol, code, message),
        clientGone: () => state.clientGone,
        capture,
        beforeEnd: options?.beforeStreamEnd,
      });
      if (keep && collected) keep({ stream: true, content: collected.text() });
    } else {
      await answerJson(res, metered, routed, surface.protocol, body.bytes, model.id, keep);
    }
  } catch (err) {
    if (state.clientGone) {
      // Nothing was relayed, so nothing is charged; the record says who ended the call.
      await meter.finish({ statusCode: 499, errorCode: 'client_closed' });
    } else {
      await meter.finish(failure(err));
      options?.onFailure?.(err);
      await answerFailure(services, ex, key, err, surface.protocol);
    }
  } finally {
    res.off('close', onClose);
    await meter.close();
  }
}

/** Same protocol: the bytes pass through its scanner. Another: decoded and re-encoded chunk by chunk. */
function scannerFor(
  protocol: ClientProtocol,
  routed: RoutedResponse,
  modelId: string,
  clientWantsUsage: boolean,
): StreamScanner {
  const upstream = routed.upstream.provider.protocol as ChatProtocol;
  if (upstream === protocol) return CHAT_ADAPTERS[upstream].scanner(clientWantsUsage);
  return new TranslatingScanner(
    CODECS[upstream].streamDecoder(),
    CLIENT_CODECS[protocol].streamEncoder({ model: modelId, clientWantsUsage }),
  );
}

const clientClosed = () => new Error('the client closed the connection');
