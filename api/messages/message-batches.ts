import { Readable } from 'node:stream';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { totalsOf } from '../../shared/batches/batch-view.js';
import { cancelBatch, createBatch } from '../../shared/batches/create-batch.js';
import { parseLineBody } from '../../shared/batches/endpoints.js';
import { messageBatchObject, messageBatchResult, processingStatus } from '../../shared/batches/message-batch-view.js';
import type { BatchRow } from '../../shared/db/batches-schema.js';
import { findUserBatch, linesWithResults, listUserBatches } from '../../shared/db/batches.js';
import { badRequest, isGatewayError, notFound } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { parseOrThrow } from '../../shared/validation.js';
import { baseUrl } from '../http/base-url.js';
import { authenticateAndCount } from '../http/credential.js';
import { readJsonObject } from '../middleware/read-json.js';
import { messagesCredential } from './surface.js';

// Anthropic's rule for custom_id.
const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

export const createMessageBatchSchema = z.strictObject({
  requests: z
    .array(
      z.strictObject({
        custom_id: z.string().regex(CUSTOM_ID, 'must match ^[a-zA-Z0-9_-]{1,64}$'),
        params: z.unknown(),
      }),
    )
    .min(1),
});

const authenticate = (ctx: Context, services: GatewayServices): Promise<ApiKeyContext> =>
  authenticateAndCount(ctx, services, { secret: messagesCredential(ctx.req), ip: ctx.ip });

/** `…/v1/messages/batches/{id}/results` on the prefix the request came on (`/v1` or `/native-messages/v1`). */
function resultsUrl(services: GatewayServices, ctx: Context, id: string): string {
  const prefix = ctx.path.slice(0, ctx.path.indexOf('/messages/batches'));
  return `${baseUrl(services, ctx)}${prefix}/messages/batches/${id}/results`;
}

async function view(services: GatewayServices, ctx: Context, batch: BatchRow) {
  return messageBatchObject(batch, await totalsOf(services.db, batch), resultsUrl(services, ctx, batch.id));
}

/**
 * POST …/v1/messages/batches: inline `requests[]`, each `params` checked as a Messages call would
 * check it (400 naming `requests[i].params.<field>`), run by the same batch workers as the Batch
 * API (workers/batches/run-batch.ts).
 */
export function createMessageBatch(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticate(ctx, services);
    const body = await readJsonObject(ctx, services.config.batches.maxFileBytes);
    const { requests } = parseOrThrow(createMessageBatchSchema, body.value);
    if (requests.length > services.config.batches.maxFileLines)
      throw badRequest(`at most ${services.config.batches.maxFileLines} requests`, 'requests');
    const seen = new Set<string>();
    const lines = requests.map((r, i) => {
      if (seen.has(r.custom_id)) throw badRequest(`duplicate custom_id '${r.custom_id}'`, `requests[${i}].custom_id`);
      seen.add(r.custom_id);
      try {
        parseLineBody('/v1/messages', r.params);
      } catch (err) {
        if (!isGatewayError(err)) throw err;
        const field = err.param === undefined || err.param === 'body' ? '' : `.${err.param.replace(/^body\./, '')}`;
        throw badRequest(`requests[${i}].params: ${err.message}`, `requests[${i}].params${field}`);
      }
      return { custom_id: r.custom_id, body: JSON.stringify(r.params) };
    });
    const batch = await createBatch(services, key, {
      api: 'anthropic',
      endpoint: '/v1/messages',
      inputFileId: null,
      metadata: null,
      lines,
    });
    ctx.body = await view(services, ctx, batch);
  };
}

async function ownBatch(ctx: Context, services: GatewayServices): Promise<BatchRow> {
  const key = await authenticate(ctx, services);
  const id = String(ctx.params.id);
  const batch = await findUserBatch(services.db, key.userId, 'anthropic', id);
  if (!batch) throw notFound(`no message batch ${id}`);
  return batch;
}

export function getMessageBatch(services: GatewayServices): Middleware {
  return async (ctx) => {
    ctx.body = await view(services, ctx, await ownBatch(ctx, services));
  };
}

export function cancelMessageBatch(services: GatewayServices): Middleware {
  return async (ctx) => {
    ctx.body = await view(services, ctx, await cancelBatch(services, await ownBatch(ctx, services)));
  };
}

export const messageBatchListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(20),
  after_id: z.string().min(1).optional(),
  before_id: z.string().min(1).optional(),
});

/** GET …/v1/messages/batches: newest first, Anthropic's paging (`after_id`, `before_id`, `first_id`, `last_id`). */
export function listMessageBatches(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticate(ctx, services);
    const q = parseOrThrow(messageBatchListQuery, ctx.query);
    const anchor = async (id: string | undefined) => {
      if (!id) return undefined;
      const row = await findUserBatch(services.db, key.userId, 'anthropic', id);
      if (!row) throw notFound(`no message batch ${id}`);
      return row;
    };
    const rows = await listUserBatches(
      services.db,
      key.userId,
      'anthropic',
      q.limit + 1,
      await anchor(q.after_id),
      await anchor(q.before_id),
    );
    const page = rows.slice(0, q.limit);
    ctx.body = {
      data: await Promise.all(page.map((b) => view(services, ctx, b))),
      has_more: rows.length > q.limit,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
    };
  };
}

/** GET …/v1/messages/batches/{id}/results: JSONL in request order, streamed from the stored lines once the batch ended. */
export function messageBatchResults(services: GatewayServices): Middleware {
  return async (ctx) => {
    const batch = await ownBatch(ctx, services);
    if (processingStatus(batch) !== 'ended')
      throw badRequest(`message batch ${batch.id} is still ${processingStatus(batch)}: its results are not ready`);
    async function* lines() {
      for (let after = 0; ; ) {
        const rows = await linesWithResults(services.db, batch.id, after, 1_000);
        for (const row of rows) yield `${messageBatchResult(batch, row)}\n`;
        if (rows.length < 1_000) return;
        after = rows.at(-1)!.line;
      }
    }
    ctx.set('content-type', 'application/binary');
    ctx.body = Readable.from(lines());
  };
}
