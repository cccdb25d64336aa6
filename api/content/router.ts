import type Router from '@koa/router';
import { apiRouter } from '../http/router.js';
import type { Context } from 'koa';
import { groupAllows, type CatalogModel } from '../../shared/catalog/index.js';
import { structuredTokenCount } from '../../shared/billing/prompt-tokens.js';
import { GatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { countContentTokensSchema } from '../../shared/protocols/gemini/content-request.js';
import { field } from '../../shared/protocols/gemini/to-canonical.js';
import { planModels } from '../../shared/routing/plan.js';
import { parseOrThrow } from '../../shared/validation.js';
import { generationHandler } from '../generation/handler.js';
import { exchangeFromKoa } from '../http/exchange.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateAndCount } from '../http/credential.js';
import { contentCredential, generateContentSurface, modelOfPath } from './surface.js';
import { embeddingsHandler } from '../embeddings/handler.js';
import { batchEmbedContents, embedContent } from '../embeddings/surfaces.js';

const GENERATION_METHODS = ['generateContent', 'streamGenerateContent', 'countTokens'];
const EMBEDDING_METHODS = ['embedContent', 'batchEmbedContents'];

/** A chat model as the generateContent protocol lists it. */
function contentModel(m: CatalogModel) {
  return {
    name: `models/${m.id}`,
    baseModelId: m.id,
    version: '1',
    displayName: m.id,
    description: `${m.id} (served by the gateway; owned by ${m.owned_by})`,
    outputTokenLimit: m.max_output_tokens,
    supportedGenerationMethods: m.endpoints.includes('chat/completions') ? GENERATION_METHODS : EMBEDDING_METHODS,
  };
}

/** The models this surface lists: chat models (generateContent) and embedding models (embedContent). */
const servesContent = (m: CatalogModel) =>
  m.endpoints.includes('chat/completions') || m.endpoints.includes('embeddings');

const keyOf = (ctx: Context, services: GatewayServices) =>
  authenticateAndCount(ctx, services, { secret: contentCredential(ctx.req), ip: ctx.ip });

function pathRest(ctx: Context): string {
  const raw = ctx.params.model as string | string[];
  return Array.isArray(raw) ? raw.join('/') : raw;
}

/**
 * The generateContent-style surface under `/native-content/v1beta` (the spec's prefix) and `/v1beta`
 * (the older unprefixed routes). Generation itself is answered before Koa by the route table; the
 * POST route here serves `:countTokens`, and the generation methods for the route list. Any other
 * method (embedContent, batchEmbedContents, …) answers 501 in this protocol's format.
 */
export function contentRouter(services: GatewayServices): Router {
  const router = apiRouter();
  const generate = generationHandler(services, generateContentSurface);
  const embedOne = embeddingsHandler(services, embedContent);
  const embedBatch = embeddingsHandler(services, batchEmbedContents);
  for (const prefix of ['/native-content/v1beta', '/v1beta']) {
    router.get(`${prefix}/models`, async (ctx) => {
      const key = await keyOf(ctx, services);
      const models = [...services.catalog.models.values()].filter(
        (m) => servesContent(m) && groupAllows(services.catalog, key.groupId, m.id),
      );
      ctx.body = { models: models.map(contentModel) };
    });
    router.get(`${prefix}/models/*model`, async (ctx) => {
      const key = await keyOf(ctx, services);
      const id = modelOfPath(pathRest(ctx));
      const model = services.catalog.models.get(id);
      if (!model || !servesContent(model) || !groupAllows(services.catalog, key.groupId, id)) {
        throw new GatewayError('model_not_found', 404, `model '${id}' does not exist`, { param: 'model' });
      }
      ctx.body = contentModel(model);
    });
    router.post(`${prefix}/models/*model`, async (ctx) => {
      const rest = pathRest(ctx);
      const colon = rest.lastIndexOf(':');
      const method = colon === -1 ? '' : rest.slice(colon + 1);
      const model = rest.slice(0, colon);
      if (method === 'generateContent' || method === 'streamGenerateContent')
        return generate(exchangeFromKoa(ctx), { model, stream: method === 'streamGenerateContent' });
      if (method === 'countTokens') return countTokens(ctx, services, modelOfPath(model));
      if (method === 'embedContent') return embedOne(exchangeFromKoa(ctx), { model });
      if (method === 'batchEmbedContents') return embedBatch(exchangeFromKoa(ctx), { model });
      throw new GatewayError(
        'not_implemented',
        501,
        `models/{model}:${method || '(none)'} is not implemented by this gateway`,
      );
    });
  }
  return router;
}

/**
 * `:countTokens` → `{totalTokens}`, counted by the gateway with the model's tokenizer (no upstream
 * call, nothing charged); takes `contents` or a whole `generateContentRequest`.
 */
async function countTokens(ctx: Context, services: GatewayServices, modelId: string): Promise<void> {
  const key = await keyOf(ctx, services);
  const body = await readJsonObject(ctx, services.config.http.bodyLimitBytes);
  const request = parseOrThrow(countContentTokensSchema, body.value);
  const whole = request.generateContentRequest;
  const contents = whole?.contents ?? request.contents;
  if (!contents)
    throw new GatewayError('invalid_request', 400, "invalid value for 'contents': required array", {
      param: 'contents',
    });
  const plan = await planModels(services.routing, key, modelId, 'chat/completions');
  const model = plan.models[0]!;
  ctx.set('X-Service-Token-Count', `estimated; tokenizer=${model.tokenizer}`);
  ctx.body = {
    totalTokens: structuredTokenCount(contents, whole ? [field(whole, 'systemInstruction'), whole.tools] : [], model),
  };
}
