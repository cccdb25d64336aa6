import { sql, type Insertable, type Updateable } from 'kysely';
import type { BatchApi, BatchLinesTable, BatchRow, BatchStatus, BatchesTable } from './batches-schema.js';
import type { Db, Trx } from './index.js';

export function insertBatch(db: Db | Trx, row: Insertable<BatchesTable>): Promise<BatchRow> {
  return db.insertInto('batches').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Scoped to the account and the API that made it: another account's batch is indistinguishable from a missing one. */
export function findUserBatch(db: Db | Trx, userId: string, api: BatchApi, id: string): Promise<BatchRow | undefined> {
  return db
    .selectFrom('batches')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('api', '=', api)
    .executeTakeFirst();
}

export function findBatch(db: Db | Trx, id: string): Promise<BatchRow | undefined> {
  return db.selectFrom('batches').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Newest first; `after` is the last batch of the previous page, `before` the first of the next. */
export async function listUserBatches(
  db: Db,
  userId: string,
  api: BatchApi,
  limit: number,
  after?: BatchRow,
  before?: BatchRow,
): Promise<BatchRow[]> {
  let query = db.selectFrom('batches').selectAll().where('user_id', '=', userId).where('api', '=', api);
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', after.created_at),
        eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)]),
      ]),
    );
  if (before)
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '>', before.created_at),
        eb.and([eb('created_at', '=', before.created_at), eb('id', '>', before.id)]),
      ]),
    );
  // A page before an anchor is the `limit` batches just newer than it: read upwards, shown newest first.
  const order = before && !after ? 'asc' : 'desc';
  const rows = await query.orderBy('created_at', order).orderBy('id', order).limit(limit).execute();
  return order === 'asc' ? rows.reverse() : rows;
}

/** Moves a batch from one of `from` (a compare-and-set: of two movers, one wins); undefined when it was elsewhere. */
export function moveBatch(
  db: Db | Trx,
  id: string,
  from: readonly BatchStatus[],
  patch: Updateable<BatchesTable>,
): Promise<BatchRow | undefined> {
  return db
    .updateTable('batches')
    .set(patch)
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/** Batches not ended whose job may have been lost (Redis flushed): the maintenance sweep enqueues them again. */
export function openBatches(db: Db, limit: number): Promise<Pick<BatchRow, 'id' | 'trace_context'>[]> {
  return db
    .selectFrom('batches')
    .select(['id', 'trace_context'])
    .where('status', 'in', ['validating', 'in_progress', 'finalizing', 'cancelling'])
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/** A chunk of lines; a line already there (a validation run again after a crash) is left as it is. */
export async function insertLines(db: Db | Trx, rows: Insertable<BatchLinesTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('batch_lines')
    .values(rows)
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The next pending lines in file order, after `afterLine`. */
export function pendingLines(db: Db, batchId: string, afterLine: number, limit: number) {
  return db
    .selectFrom('batch_lines')
    .select(['line', 'custom_id', 'body'])
    .where('batch_id', '=', batchId)
    .where('status', '=', 'pending')
    .where('line', '>', afterLine)
    .orderBy('line')
    .limit(limit)
    .execute();
}

/**
 * A line's result, stored once: a line already finished (by a worker that died after storing it
 * and before its batch heard) is not overwritten. True when this call stored it.
 */
export async function storeLineResult(
  db: Db,
  batchId: string,
  line: number,
  result: Updateable<BatchLinesTable> & { status: 'succeeded' | 'failed' },
): Promise<boolean> {
  const done = await db
    .updateTable('batch_lines')
    .set(result)
    .where('batch_id', '=', batchId)
    .where('line', '=', line)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

export interface LineTotals {
  total: number;
  completed: number;
  failed: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
}

/** request_counts and usage, live, from the lines. */
export async function lineTotals(db: Db | Trx, batchId: string): Promise<LineTotals> {
  const row = await db
    .selectFrom('batch_lines')
    .select([
      sql<string>`count(*)`.as('total'),
      sql<string>`count(*) FILTER (WHERE status = 'succeeded')`.as('completed'),
      sql<string>`count(*) FILTER (WHERE status = 'failed')`.as('failed'),
      sql<string>`coalesce(sum(input_tokens), 0)`.as('input_tokens'),
      sql<string>`coalesce(sum(output_tokens), 0)`.as('output_tokens'),
      sql<string>`coalesce(sum(cached_tokens), 0)`.as('cached_tokens'),
    ])
    .where('batch_id', '=', batchId)
    .executeTakeFirstOrThrow();
  return {
    total: Number(row.total),
    completed: Number(row.completed),
    failed: Number(row.failed),
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    cached_tokens: Number(row.cached_tokens),
  };
}

/** Lines in file order after `afterLine`, with their results as stored (JSON text: written out as it is). */
export function linesWithResults(db: Db, batchId: string, afterLine: number, limit: number) {
  return db
    .selectFrom('batch_lines')
    .select([
      'line',
      'custom_id',
      'status',
      'request_id',
      'status_code',
      sql<string | null>`response::text`.as('response'),
    ])
    .where('batch_id', '=', batchId)
    .where('line', '>', afterLine)
    .orderBy('line')
    .limit(limit)
    .execute();
}
