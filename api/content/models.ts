import type { Context, Middleware } from 'koa';
import { groupAllows, type CatalogModel } from '../../shared/catalog/index.js';
import { GatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { authenticateAndCount } from '../http/credential.js';
import { pathParam } from '../http/router.js';
import { contentCredential, modelOfPath } from './surface.js';

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

/** Steps 1-3 with the key where this protocol carries it (header or `?key=`). */
export const contentKey = (ctx: Context, services: GatewayServices) =>
  authenticateAndCount(ctx, services, { secret: contentCredential(ctx.req), ip: ctx.ip });

/** GET …/models: the chat and embedding models this key may call, as `models/{id}`. */
export function listContentModels(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await contentKey(ctx, services);
    const models = [...services.catalog.models.values()].filter(
      (m) => servesContent(m) && groupAllows(services.catalog, key.groupId, m.id),
    );
    ctx.body = { models: models.map(contentModel) };
  };
}

/** GET …/models/{model}: one of them (`models/` in front of the id is optional). */
export function getContentModel(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await contentKey(ctx, services);
    const id = modelOfPath(pathParam(ctx, 'model'));
    const model = services.catalog.models.get(id);
    if (!model || !servesContent(model) || !groupAllows(services.catalog, key.groupId, id)) {
      throw new GatewayError('model_not_found', 404, `model '${id}' does not exist`, { param: 'model' });
    }
    ctx.body = contentModel(model);
  };
}
