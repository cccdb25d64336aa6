import { GatewayError, isGatewayError } from '../../shared/errors.js';
import { authenticate, authenticateCached } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { runTextCall } from '../../shared/generation/run-text-call.js';
import { TextCall } from '../../shared/generation/text-call.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { parseCacheTtlHeader } from '../../shared/response-cache/ttl.js';
import { sessionIdOf } from '../../shared/usage/session-id.js';
import { callTags } from '../../shared/usage/tags.js';
import { answerFailure } from '../http/answer-failure.js';
import { headerOf, type Exchange } from '../http/exchange.js';
import { readJsonBody, type JsonBody } from '../middleware/read-json.js';
import { RelaySink } from './relay-sink.js';
import type { RouteParams, Surface } from './surface.js';

export type GenerationHandler = (ex: Exchange, params: RouteParams) => Promise<void>;

/**
 * The HTTP handler of every text surface (chat completions, Responses, Messages, generateContent):
 * the credential (steps 1-3), the body, then the call to shared/generation's engine with the relay
 * (a stream) or the JSON answer as its sink. Answers everything itself, errors included, in the
 * surface's protocol; never rejects.
 */
export function generationHandler(services: GatewayServices, surface: Surface): GenerationHandler {
  const limit = services.config.http.bodyLimitBytes;
  return (ex, params) => answer(services, surface, limit, ex, params);
}

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
    // A body that could not be read is recorded: the key is known.
    if (key) await textCall(services, surface, ex, key, [...key.tags], null).meter.finish(failure(err));
    await answerFailure(services, ex, key, err, surface.protocol);
    return;
  }
  let tags: string[];
  let cacheTtl: number | undefined;
  try {
    tags = callTags(headerOf(req, 'x-service-tags'), key.tags);
    cacheTtl = parseCacheTtlHeader(headerOf(req, 'x-service-cache-ttl'));
  } catch (err) {
    await answerFailure(services, ex, key, err, surface.protocol);
    return;
  }
  const call = textCall(services, surface, ex, key, tags, sessionIdOf(headerOf(req, 'x-session-id')));
  const sink = new RelaySink(services, ex, call);
  try {
    await runTextCall(services, call, sink, {
      body,
      params,
      forwarded: surface.forwardedHeaders(req),
      templateVars: headerOf(req, 'x-service-template-vars'),
      cacheTtl,
    });
  } finally {
    sink.release();
  }
}

function textCall(
  services: GatewayServices,
  surface: Surface,
  ex: Exchange,
  key: ApiKeyContext,
  tags: string[],
  sessionId: string | null,
): TextCall {
  return new TextCall(services, key, surface, surface.id, ex.requestId, ex.callId, tags, sessionId);
}

const failure = (err: unknown) => ({
  statusCode: isGatewayError(err) ? err.status : 500,
  errorCode: isGatewayError(err) ? err.code : 'internal_error',
});
