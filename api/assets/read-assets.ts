import type { Middleware } from 'koa';
import { z } from 'zod';
import { deleteDerivatives } from '../../shared/assets/forwarded.js';
import { assetView, findAsset, scoped } from '../../shared/assets/scope.js';
import { notFound } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { linkUrl, signLink } from '../../shared/storage/signed-links.js';
import { parseOrThrow } from '../../shared/validation.js';
import type { AssetSurface } from './asset-surface.js';
import { baseUrl } from '../videos/task-responses.js';
import { readPageQuery, sendPage } from '../console/envelope.js';

const DOWNLOAD_TTL_MS = 15 * 60_000;
const ASSET_ID = /^asset_[A-Za-z0-9]{20}$/;
const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().regex(ASSET_ID, 'must be the next_cursor of a previous page').optional(),
});

function assetId(value: unknown): string {
  const id = String(value ?? '');
  if (!ASSET_ID.test(id)) throw notFound('no such asset');
  return id;
}

/**
 * GET /v1/assets: the assets in the key's scope, newest first; `cursor` = the previous page's
 * `next_cursor`. GET /api/v1/assets: the account's assets in the console's paginated envelope.
 */
export function listAssets(services: GatewayServices, surface: AssetSurface): Middleware {
  return async (ctx) => {
    const { key, userId } = await surface.owner(ctx);
    if (surface.paged) {
      const page = readPageQuery(ctx);
      const [rows, count] = await Promise.all([
        scoped(services.db, key, userId)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(page.pageSize)
          .offset((page.page - 1) * page.pageSize)
          .execute(),
        scoped(services.db, key, userId)
          .clearSelect()
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      sendPage(ctx, page, rows.map(assetView), Number(count.n));
      return;
    }
    const q = parseOrThrow(listQuery, ctx.query);
    let query = scoped(services.db, key, userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(q.limit + 1);
    if (q.cursor) {
      const after = await findAsset(services.db, key, userId, q.cursor);
      if (after)
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '<', after.created_at),
            eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)]),
          ]),
        );
    }
    const rows = await query.execute();
    const page = rows.slice(0, q.limit);
    surface.send(ctx, {
      object: 'list',
      data: page.map(assetView),
      has_more: rows.length > q.limit,
      next_cursor: rows.length > q.limit ? page.at(-1)!.id : null,
    });
  };
}

export function getAsset(services: GatewayServices, surface: AssetSurface): Middleware {
  return async (ctx) => {
    const { key, userId } = await surface.owner(ctx);
    const row = await findAsset(services.db, key, userId, assetId(ctx.params.id));
    if (!row) throw notFound('no such asset');
    surface.send(ctx, assetView(row));
  };
}

/** GET /v1/assets/{id}/content: `{url, expires_at}`, a download link valid 15 minutes for this account only. */
export function assetContent(services: GatewayServices, surface: AssetSurface): Middleware {
  return async (ctx) => {
    const { key, userId } = await surface.owner(ctx);
    const row = await findAsset(services.db, key, userId, assetId(ctx.params.id));
    if (!row) throw notFound('no such asset');
    const expiresAt = services.clock.now() + DOWNLOAD_TTL_MS;
    const token = signLink(
      {
        objectKey: row.object_key,
        userId: row.user_id,
        expiresAt,
        filename: row.filename,
        contentType: row.content_type,
      },
      services.linkSecret,
    );
    ctx.set('Cache-Control', 'no-store');
    surface.send(ctx, { url: linkUrl(baseUrl(services, ctx), token), expires_at: new Date(expiresAt).toISOString() });
  };
}

/** DELETE /v1/assets/{id}: 204; the object goes too, and references to it then answer like missing ones. */
export function deleteAsset(services: GatewayServices, surface: AssetSurface): Middleware {
  return async (ctx) => {
    const { key, userId } = await surface.owner(ctx);
    const row = await findAsset(services.db, key, userId, assetId(ctx.params.id));
    if (!row) throw notFound('no such asset');
    await services.db.deleteFrom('assets').where('id', '=', row.id).execute();
    await services.storage.delete(row.object_key);
    await deleteDerivatives(services.storage, row);
    ctx.status = 204;
  };
}
