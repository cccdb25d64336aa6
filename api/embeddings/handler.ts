import { isGatewayError } from '../../shared/errors.js';
import { authenticate, authenticateCached } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { MeterChain } from '../../shared/generation/meter-chain.js';
import { runEmbeddings, type EmbeddingsSink } from '../../shared/generation/run-embeddings.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { withDefaultModel } from '../../shared/routing/default-model.js';
import { parseCacheTtlHeader } from '../../shared/response-cache/ttl.js';
import { callTags } from '../../shared/usage/tags.js';
import { answerFailure } from '../http/answer-failure.js';
import { headerOf, sendJson, type Exchange } from '../http/exchange.js';
import type { RouteParams } from '../generation/surface.js';
import { readJsonBody } from '../middleware/read-json.js';
import type { EmbeddingSurface } from './surfaces.js';

/**
 * One embeddings call over HTTP, for every embeddings surface, on the fast path beside generation:
 * steps 1-3 and the body here, the rest in the one embeddings engine
 * (shared/generation/run-embeddings.ts). Answers everything itself, errors included, in the
 * surface's protocol; never rejects.
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
    const headerTtl = parseCacheTtlHeader(headerOf(req, 'x-service-cache-ttl'));
    chain = new MeterChain(services, owner, 'embeddings', surface.id, ex.requestId, ex.callId, tags);
    const body = await readJsonBody(req, services.config.http.bodyLimitBytes);
    const { provider, ...fields } = surface.id === 'embeddings' ? withDefaultModel(body.value, key) : body.value;
    const cacheRequest = { surface: surface.id, body: fields, headerTtl };
    const sink: EmbeddingsSink = {
      limitHeaders(headers) {
        for (const name in headers) res.setHeader(name, headers[name]!);
      },
      model(model) {
        res.setHeader('X-Service-Model', model.id);
      },
      answer(json) {
        sendJson(res, 200, json);
      },
      cacheStatus(status) {
        res.setHeader('X-Service-Cache', status);
      },
    };
    await runEmbeddings(services, chain, surface.parse(fields, params.model), provider, sink, cacheRequest);
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
