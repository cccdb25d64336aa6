import { sql } from 'kysely';
import type { Db } from './index.js';

/** A key's charges in total, since the start of the day and of the month. */
export async function keySpend(db: Db, keyId: string, dayStart: Date, monthStart: Date) {
  const row = await db
    .selectFrom('usage_records')
    .select([
      sql<string>`coalesce(sum(charged_micro_usd), 0)`.as('total'),
      sql<string>`coalesce(sum(charged_micro_usd) FILTER (WHERE created_at >= ${dayStart}), 0)`.as('daily'),
      sql<string>`coalesce(sum(charged_micro_usd) FILTER (WHERE created_at >= ${monthStart}), 0)`.as('monthly'),
    ])
    .where('api_key_id', '=', keyId)
    .where('charged_micro_usd', '>', 0)
    .executeTakeFirstOrThrow();
  return { total: Number(row.total), daily: Number(row.daily), monthly: Number(row.monthly) };
}
