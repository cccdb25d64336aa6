import type { Context, Middleware } from 'koa';
import { deletePreset, findPreset, insertPreset, listPresets, updatePreset } from '../../../shared/db/presets.js';
import { GatewayError, notFound } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { PRESET_SLUG } from '../../../shared/routing/model-spec.js';
import { readConsoleBody } from '../body.js';
import { readPageQuery, sendData, sendPage } from '../envelope.js';
import { signedIn } from '../session.js';
import { presetCreateSchema, presetFields, presetUpdateSchema, presetView } from './preset-body.js';

const presetNotFound = () => notFound('no such preset');

function slugParam(ctx: Context): string {
  const slug = String(ctx.params.slug ?? '');
  if (!PRESET_SLUG.test(slug)) throw presetNotFound();
  return slug;
}

/** POST /api/v1/presets: 201 with the preset; 409 when the account already has this slug. */
export function createPreset(services: GatewayServices): Middleware {
  return async (ctx) => {
    const body = await readConsoleBody(ctx, presetCreateSchema);
    const row = await insertPreset(services.db, signedIn(ctx).user.id, body.slug, presetFields(services.catalog, body));
    if (!row) throw new GatewayError('conflict', 409, `a preset '${body.slug}' already exists`, { param: 'slug' });
    services.routing.cache.clear();
    sendData(ctx, presetView(row), 201);
  };
}

/** GET /api/v1/presets: the account's presets by slug, in the paginated envelope. */
export function listPresetsRoute(services: GatewayServices): Middleware {
  return async (ctx) => {
    const query = readPageQuery(ctx);
    const { rows, total } = await listPresets(services.db, signedIn(ctx).user.id, query.page, query.pageSize);
    sendPage(ctx, query, rows.map(presetView), total);
  };
}

export function getPreset(services: GatewayServices): Middleware {
  return async (ctx) => {
    const row = await findPreset(services.db, signedIn(ctx).user.id, slugParam(ctx));
    if (!row) throw presetNotFound();
    sendData(ctx, presetView(row));
  };
}

/** PATCH /api/v1/presets/{slug}: the given fields; the result is checked whole. */
export function patchPreset(services: GatewayServices): Middleware {
  return async (ctx) => {
    const slug = slugParam(ctx);
    const body = await readConsoleBody(ctx, presetUpdateSchema);
    const userId = signedIn(ctx).user.id;
    const current = await findPreset(services.db, userId, slug);
    if (!current) throw presetNotFound();
    const row = await updatePreset(services.db, userId, slug, presetFields(services.catalog, body, current));
    if (!row) throw presetNotFound();
    services.routing.cache.clear();
    sendData(ctx, presetView(row));
  };
}

export function removePreset(services: GatewayServices): Middleware {
  return async (ctx) => {
    if (!(await deletePreset(services.db, signedIn(ctx).user.id, slugParam(ctx)))) throw presetNotFound();
    services.routing.cache.clear();
    ctx.status = 204;
  };
}
