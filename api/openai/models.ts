import type { Middleware } from 'koa';
import type { CatalogModel } from '../../shared/catalog/index.js';
import { groupAllows } from '../../shared/catalog/index.js';
import { GatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { presetSlugs } from '../../shared/db/presets.js';
import { authenticateAndCount } from '../http/credential.js';

// The catalog has no creation dates; a fixed one keeps `created` stable across restarts.
const CREATED = 1_735_689_600;

/** A model with the gateway endpoints it serves, so a client can tell chat from embedding and image models. */
function modelObject(m: CatalogModel) {
  return { id: m.id, object: 'model', created: CREATED, owned_by: m.owned_by, endpoints: m.endpoints };
}

function presetObject(slug: string, created: Date) {
  return { id: `@preset/${slug}`, object: 'model', created: Math.floor(created.getTime() / 1000), owned_by: 'preset' };
}

/** GET /v1/models: the models this key's group may call, then the account's presets as `@preset/<slug>`. */
export function listModels(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticateAndCount(ctx, services);
    const models: object[] = [...services.catalog.models.values()]
      .filter((m) => groupAllows(services.catalog, key.groupId, m.id))
      .map(modelObject);
    const presets = (await presetSlugs(services.db, key.userId)).map((p) => presetObject(p.slug, p.created_at));
    ctx.body = { object: 'list', data: [...models, ...presets] };
  };
}

/** GET /v1/models/{id}: the API model id as listed (ids may contain '/'). */
export function getModel(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticateAndCount(ctx, services);
    const raw = ctx.params.id as string | string[];
    const id = Array.isArray(raw) ? raw.join('/') : raw;
    if (id.startsWith('@preset/')) {
      const preset = await services.routing.cache.preset(key.userId, id.slice('@preset/'.length));
      if (!preset) throw new GatewayError('model_not_found', 404, `model '${id}' does not exist`, { param: 'model' });
      ctx.body = presetObject(preset.slug, preset.created_at);
      return;
    }
    const model = services.catalog.models.get(id);
    if (!model || !groupAllows(services.catalog, key.groupId, id)) {
      throw new GatewayError('model_not_found', 404, `model '${id}' does not exist`, { param: 'model' });
    }
    ctx.body = modelObject(model);
  };
}
