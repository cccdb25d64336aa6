import type { Insertable } from 'kysely';
import type { BatchApi, BatchRow, BatchLinesTable } from '../db/batches-schema.js';
import { insertBatch, insertLines, moveBatch } from '../db/batches.js';
import { GatewayError } from '../errors.js';
import type { GatewayServices } from '../gateway/services.js';
import { randomBase62 } from '../ids.js';
import { jobId } from '../jobs/catalog.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import { jobTraceCarrier } from '../telemetry/spans.js';
import type { BatchEndpoint } from './endpoints.js';

export interface NewBatch {
  api: BatchApi;
  endpoint: BatchEndpoint;
  inputFileId: string | null;
  metadata: Record<string, string> | null;
  /** Inline requests (Message Batches), already checked: the batch starts `in_progress`. */
  lines?: { custom_id: string; body: string }[];
}

/**
 * A batch, stored and handed to the `batch` queue (workers/batches/run-batch.ts): an input file's
 * batch starts `validating`; inline requests were checked by the API and start `in_progress`.
 */
export async function createBatch(services: GatewayServices, key: ApiKeyContext, batch: NewBatch): Promise<BatchRow> {
  const now = new Date(services.clock.now());
  const id = batch.api === 'anthropic' ? `msgbatch_${randomBase62(24)}` : `batch_${randomBase62(24)}`;
  const row = await services.db.transaction().execute(async (trx) => {
    const created = await insertBatch(trx, {
      id,
      user_id: key.userId,
      api_key_id: key.id,
      api: batch.api,
      endpoint: batch.endpoint,
      input_file_id: batch.inputFileId,
      status: batch.lines ? 'in_progress' : 'validating',
      metadata: batch.metadata ? JSON.stringify(batch.metadata) : null,
      total: batch.lines?.length ?? 0,
      created_at: now,
      in_progress_at: batch.lines ? now : null,
      expires_at: new Date(now.getTime() + services.config.batches.windowMs),
      trace_context: jobTraceCarrier() ?? null,
    });
    const lines: Insertable<BatchLinesTable>[] = (batch.lines ?? []).map((l, i) => ({
      batch_id: id,
      line: i + 1,
      custom_id: l.custom_id,
      body: l.body,
    }));
    for (let at = 0; at < lines.length; at += 1_000) await insertLines(trx, lines.slice(at, at + 1_000));
    return created;
  });
  await enqueueBatch(services, id);
  return row;
}

/**
 * The batch's job under its fixed id: adding it while it waits or runs is a no-op; one kept after
 * it finished (failed for good) is removed first, so a re-drive runs it again.
 */
export async function enqueueBatch(services: GatewayServices, batchId: string): Promise<void> {
  const id = jobId('batch', batchId);
  const old = await services.jobs.queues.get('batch')!.getJob(id);
  if (old && ((await old.isCompleted()) || (await old.isFailed()))) await old.remove();
  await services.jobs.enqueue('batch', { batchId }, { jobId: id });
}

/**
 * Asks a batch that has not ended to stop: `cancelling` until its worker finishes the lines in
 * flight and writes the partial results (then `cancelled`, charged only for the lines that ran).
 */
export async function cancelBatch(services: GatewayServices, batch: BatchRow): Promise<BatchRow> {
  const moved = await moveBatch(services.db, batch.id, ['validating', 'in_progress'], {
    status: 'cancelling',
    cancelling_at: new Date(services.clock.now()),
  });
  if (moved) {
    await enqueueBatch(services, batch.id);
    return moved;
  }
  if (batch.status === 'cancelling' || batch.status === 'cancelled') return batch;
  throw new GatewayError('conflict', 409, `a batch that is ${batch.status} cannot be cancelled`);
}
