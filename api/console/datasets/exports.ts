import type { Context, Middleware } from 'koa';
import { checkFilters, exportRequestSchema } from '../../../shared/datasets/filters.js';
import type { Selectable } from 'kysely';
import type { DatasetExportsTable } from '../../../shared/db/schema.js';
import { notFound } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { jobId } from '../../../shared/jobs/catalog.js';
import { linkUrl, signLink } from '../../../shared/storage/signed-links.js';
import { readConsoleBody } from '../body.js';
import { readPageQuery, sendData, sendPage } from '../envelope.js';
import { signedIn } from '../session.js';
import { UUID_PATTERN as UUID } from '../../../shared/ids.js';
import { baseUrl } from '../../http/base-url.js';

const LINK_TTL_MS = 15 * 60_000;

function view(services: GatewayServices, ctx: Context, row: Selectable<DatasetExportsTable>) {
  const now = services.clock.now();
  const download =
    row.status === 'succeeded' && row.object_key
      ? {
          url: linkUrl(
            baseUrl(services, ctx),
            signLink(
              {
                objectKey: row.object_key,
                userId: row.user_id,
                expiresAt: now + LINK_TTL_MS,
                filename: `dataset-${row.id}.jsonl`,
                contentType: 'application/x-ndjson',
              },
              services.linkSecret,
            ),
          ),
          expires_at: new Date(now + LINK_TTL_MS).toISOString(),
        }
      : null;
  return {
    id: row.id,
    status: row.status,
    filters: row.filters,
    records: row.records,
    error: row.error,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
    download,
  };
}

/** POST /api/v1/datasets/exports: 202 with the export; a worker writes its JSONL file. */
export function createExport(services: GatewayServices): Middleware {
  return async (ctx) => {
    const filters = checkFilters(await readConsoleBody(ctx, exportRequestSchema));
    const row = await services.db
      .insertInto('dataset_exports')
      .values({ user_id: signedIn(ctx).user.id, filters: JSON.stringify(filters) })
      .returningAll()
      .executeTakeFirstOrThrow();
    await services.jobs.enqueue('dataset-export', { exportId: row.id }, { jobId: jobId('dataset-export', row.id) });
    sendData(ctx, view(services, ctx, row), 202);
  };
}

/** GET /api/v1/datasets/exports/{id}: its status and, once written, a short-lived download link (15 minutes, this account only). */
export function getExport(services: GatewayServices): Middleware {
  return async (ctx) => {
    const id = String(ctx.params.id ?? '');
    const row = UUID.test(id)
      ? await services.db
          .selectFrom('dataset_exports')
          .selectAll()
          .where('id', '=', id)
          .where('user_id', '=', signedIn(ctx).user.id)
          .executeTakeFirst()
      : undefined;
    if (!row) throw notFound('no such export');
    sendData(ctx, view(services, ctx, row));
  };
}

export function listExports(services: GatewayServices): Middleware {
  return async (ctx) => {
    const query = readPageQuery(ctx);
    const userId = signedIn(ctx).user.id;
    const [rows, count] = await Promise.all([
      services.db
        .selectFrom('dataset_exports')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .limit(query.pageSize)
        .offset((query.page - 1) * query.pageSize)
        .execute(),
      services.db
        .selectFrom('dataset_exports')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow(),
    ]);
    sendPage(
      ctx,
      query,
      rows.map((r) => view(services, ctx, r)),
      Number(count.n),
    );
  };
}
