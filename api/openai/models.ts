import type { Middleware } from 'koa';
import type { CatalogModel } from '../../shared/catalog/index.js';
import { groupAllows } from '../../shared/catalog/index.js';
import { GatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { authenticateRequest } from './credential.js';

// The catalog has no creation dates; a fixed one keeps `created` stable across restarts.
const CREATED = 1_735_689_600;

function modelObject(m: CatalogModel) {
  return { id: m.id, object: 'model', created: CREATED, owned_by: m.owned_by };
}

/** GET /v1/models: the models this key's group may call. */
export function listModels(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticateRequest(ctx, services);
    const data = [...services.catalog.models.values()].filter((m) => groupAllows(services.catalog, key.groupId, m.id)).map(modelObject);
    ctx.body = { object: 'list', data };
  };
}

/** GET /v1/models/{id}: the API model id as listed (ids may contain '/'). */
export function getModel(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticateRequest(ctx, services);
    const raw = ctx.params.id as string | string[];
    const id = Array.isArray(raw) ? raw.join('/') : raw;
    const model = services.catalog.models.get(id);
    if (!model || !groupAllows(services.catalog, key.groupId, id)) {
      throw new GatewayError('model_not_found', 404, `model '${id}' does not exist`, { param: 'model' });
    }
    ctx.body = modelObject(model);
  };
}
