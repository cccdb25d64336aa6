import type { Middleware } from 'koa';
import { z } from 'zod';
import { batchObject, totalsOf } from '../../shared/batches/batch-view.js';
import { cancelBatch, createBatch } from '../../shared/batches/create-batch.js';
import { BATCH_ENDPOINTS } from '../../shared/batches/endpoints.js';
import type { BatchRow } from '../../shared/db/batches-schema.js';
import { findUserBatch, listUserBatches } from '../../shared/db/batches.js';
import { findUserFile } from '../../shared/db/files.js';
import { badRequest, notFound } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { parseOrThrow } from '../../shared/validation.js';
import { authenticateAndCount } from '../http/credential.js';
import { readJsonObject } from '../middleware/read-json.js';
import type { Context } from 'koa';

/** POST /v1/batches: OpenAI's body (metadata: at most 16 string pairs, as OpenAI allows). */
export const createBatchSchema = z.strictObject({
  input_file_id: z.string().min(1),
  endpoint: z.enum(BATCH_ENDPOINTS),
  completion_window: z.literal('24h'),
  metadata: z
    .record(z.string().max(64), z.string().max(512))
    .refine((m) => Object.keys(m).length <= 16, 'at most 16 pairs')
    .nullable()
    .optional(),
});

export function createOpenAiBatch(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticateAndCount(ctx, services);
    const body = parseOrThrow(createBatchSchema, (await readJsonObject(ctx, 64 * 1024)).value);
    const file = await findUserFile(services.db, key.userId, body.input_file_id);
    if (!file) throw notFound(`No such File object: ${body.input_file_id}`);
    if (file.purpose !== 'batch') throw badRequest("the input file's purpose must be 'batch'", 'input_file_id');
    const batch = await createBatch(services, key, {
      api: 'openai',
      endpoint: body.endpoint,
      inputFileId: file.id,
      metadata: body.metadata ?? null,
    });
    ctx.body = batchObject(batch, await totalsOf(services.db, batch));
  };
}

async function ownBatch(ctx: Context, services: GatewayServices): Promise<BatchRow> {
  const key = await authenticateAndCount(ctx, services);
  const id = String(ctx.params.id);
  const batch = await findUserBatch(services.db, key.userId, 'openai', id);
  if (!batch) throw notFound(`No such batch: ${id}`);
  return batch;
}

export function getOpenAiBatch(services: GatewayServices): Middleware {
  return async (ctx) => {
    const batch = await ownBatch(ctx, services);
    ctx.body = batchObject(batch, await totalsOf(services.db, batch));
  };
}

export function cancelOpenAiBatch(services: GatewayServices): Middleware {
  return async (ctx) => {
    const batch = await cancelBatch(services, await ownBatch(ctx, services));
    ctx.body = batchObject(batch, await totalsOf(services.db, batch));
  };
}

export const batchListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().min(1).optional(),
});

/** GET /v1/batches: newest first, OpenAI's cursor paging (`after` = the last id of the previous page). */
export function listOpenAiBatches(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticateAndCount(ctx, services);
    const q = parseOrThrow(batchListQuery, ctx.query);
    let after: BatchRow | undefined;
    if (q.after) {
      after = await findUserBatch(services.db, key.userId, 'openai', q.after);
      if (!after) throw notFound(`No such batch: ${q.after}`);
    }
    const rows = await listUserBatches(services.db, key.userId, 'openai', q.limit + 1, after);
    const page = rows.slice(0, q.limit);
    const data = await Promise.all(page.map(async (b) => batchObject(b, await totalsOf(services.db, b))));
    ctx.body = {
      object: 'list',
      data,
      has_more: rows.length > q.limit,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
    };
  };
}
