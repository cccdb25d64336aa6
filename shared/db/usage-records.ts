import { sql } from 'kysely';
import type { Db } from './index.js';

/** A key's charges in total and since the start of its current day, ISO week and month. */
export async function keySpend(db: Db, keyId: string, since: { day: Date; week: Date; month: Date }) {
  const row = await db
    .selectFrom('usage_records')
    .select([
      sql<string>`coalesce(sum(charged_micro_usd), 0)`.as('total'),
      sql<string>`coalesce(sum(charged_micro_usd) FILTER (WHERE created_at >= ${since.day}), 0)`.as('daily'),
      sql<string>`coalesce(sum(charged_micro_usd) FILTER (WHERE created_at >= ${since.week}), 0)`.as('weekly'),
      sql<string>`coalesce(sum(charged_micro_usd) FILTER (WHERE created_at >= ${since.month}), 0)`.as('monthly'),
    ])
    .where('api_key_id', '=', keyId)
    .where('charged_micro_usd', '>', 0)
    .executeTakeFirstOrThrow();
  return {
    total: Number(row.total),
    daily: Number(row.daily),
    weekly: Number(row.weekly),
    monthly: Number(row.monthly),
  };
}

/** Per-model totals of a key since `since`: requests, errors (status ≥ 400), tokens and charges. */
export async function keyUsageByModel(db: Db, keyId: string, since: Date) {
  const rows = await db
    .selectFrom('usage_records')
    .select([
      'model',
      sql<string>`count(*)`.as('requests'),
      sql<string>`count(*) FILTER (WHERE status_code >= 400)`.as('errors'),
      sql<string>`coalesce(sum(input_tokens), 0)`.as('input_tokens'),
      sql<string>`coalesce(sum(output_tokens), 0)`.as('output_tokens'),
      sql<string>`coalesce(sum(cached_tokens), 0)`.as('cached_tokens'),
      sql<string>`coalesce(sum(charged_micro_usd), 0)`.as('charged_micro_usd'),
    ])
    .where('api_key_id', '=', keyId)
    .where('created_at', '>=', since)
    .groupBy('model')
    .orderBy('model')
    .execute();
  return rows.map((r) => ({
    model: r.model,
    requests: Number(r.requests),
    errors: Number(r.errors),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    cached_tokens: Number(r.cached_tokens),
    charged_micro_usd: Number(r.charged_micro_usd),
  }));
}

export function recentKeyCalls(db: Db, keyId: string, limit: number) {
  return db
    .selectFrom('usage_records')
    .select(['request_id', 'created_at', 'model', 'status_code', 'input_tokens', 'output_tokens', 'charged_micro_usd'])
    .where('api_key_id', '=', keyId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * The pause before the next look for a usage record: 25 ms, then 50 ms at most. The drain writes a
 * record 0–150 ms after it is queued (it reads its queue every 50–100 ms), often later under load;
 * a pause that kept doubling (to 400 ms) made the look after such a write come up to 400 ms late,
 * and with it the task's end and its webhook (bench:webhooks). A look is one primary-key read.
 */
export const LEDGER_LOOK_MAX_PAUSE_MS = 50;
export function nextLedgerLookPause(previous?: number): number {
  return previous === undefined ? 25 : Math.min(previous * 2, LEDGER_LOOK_MAX_PAUSE_MS);
}

/**
 * Waits (up to `timeoutMs`) until the usage drain has written the record `id` — with its ledger
 * entry, in the same statement — to Postgres; false when it has not by then. `since` bounds the
 * partitions read: the record is made after it.
 */
export async function usageRecordWritten(db: Db, id: string, since: Date, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = nextLedgerLookPause(); ; pause = nextLedgerLookPause(pause)) {
    const row = await db
      .selectFrom('usage_records')
      .select('id')
      .where('id', '=', id)
      .where('created_at', '>=', since)
      .executeTakeFirst();
    if (row) return true;
    if (Date.now() + pause > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
