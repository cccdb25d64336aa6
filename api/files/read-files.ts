import type { Middleware } from 'koa';
import { z } from 'zod';
import { fileObject } from '../../shared/batches/files.js';
import type { FileRow } from '../../shared/db/batches-schema.js';
import { deleteUserFile, findUserFile, listUserFiles } from '../../shared/db/files.js';
import { notFound } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { parseOrThrow } from '../../shared/validation.js';
import { authenticateAndCount } from '../http/credential.js';
import type { Context } from 'koa';
import { serveStoredFile } from './serve-stored-file.js';

/** `file-…` ids are the Files API's; anything else under /v1/files/ is a signed link of a stored result. */
export const isFileId = (id: string) => id.startsWith('file-');

async function ownFile(ctx: Context, services: GatewayServices): Promise<{ key: ApiKeyContext; file: FileRow }> {
  const key = await authenticateAndCount(ctx, services);
  const id = String(ctx.params.id);
  const file = await findUserFile(services.db, key.userId, id);
  if (!file) throw notFound(`No such File object: ${id}`);
  return { key, file };
}

/** GET|HEAD /v1/files/{id}: a file object, or (any other id) the stored result its signed link names. */
export function getFileOrLink(services: GatewayServices): Middleware {
  const link = serveStoredFile(services);
  return async (ctx, next) => {
    if (!isFileId(String(ctx.params.id))) {
      ctx.params.token = ctx.params.id;
      return link(ctx, next);
    }
    ctx.body = fileObject((await ownFile(ctx, services)).file);
  };
}

/** GET /v1/files/{id}/content: the bytes, streamed from object storage. */
export function fileContent(services: GatewayServices): Middleware {
  return async (ctx) => {
    const { file } = await ownFile(ctx, services);
    const stored = await services.storage.get(file.object_key);
    if (!stored) throw notFound('the file content no longer exists');
    ctx.set('content-type', 'application/jsonl');
    ctx.set('content-length', String(stored.length));
    ctx.set('content-disposition', `attachment; filename="${file.filename.replace(/["\\\r\n]/g, '_')}"`);
    ctx.body = stored.body;
  };
}

/** DELETE /v1/files/{id}: the row, then the bytes (a batch that already read its input keeps its lines). */
export function deleteFile(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticateAndCount(ctx, services);
    const id = String(ctx.params.id);
    const row = await deleteUserFile(services.db, key.userId, id);
    if (!row) throw notFound(`No such File object: ${id}`);
    await services.storage.delete(row.object_key).catch(() => undefined);
    ctx.body = { id, object: 'file', deleted: true };
  };
}

export const fileListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(10_000).default(10_000),
  after: z.string().min(1).optional(),
  order: z.enum(['asc', 'desc']).default('desc'),
  purpose: z.string().min(1).optional(),
});

/** GET /v1/files: OpenAI's cursor paging (`after` = the last id of the previous page). */
export function listFiles(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticateAndCount(ctx, services);
    const q = parseOrThrow(fileListQuery, ctx.query);
    let after: FileRow | undefined;
    if (q.after) {
      after = await findUserFile(services.db, key.userId, q.after);
      if (!after) throw notFound(`No such File object: ${q.after}`);
    }
    const rows = await listUserFiles(services.db, key.userId, q.limit + 1, {
      order: q.order,
      ...(after ? { after } : {}),
      ...(q.purpose ? { purpose: q.purpose } : {}),
    });
    const page = rows.slice(0, q.limit);
    ctx.body = {
      object: 'list',
      data: page.map(fileObject),
      has_more: rows.length > q.limit,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
    };
  };
}
