import { sql } from 'kysely';
import type { Db } from './index.js';

const pad = (n: number) => String(n).padStart(2, '0');
const monthName = (y: number, m: number) => `usage_records_${y}_${pad(m + 1)}`;

/**
 * Creates the monthly partitions of usage_records from this month to `monthsAhead` ahead (run by
 * the maintenance job, so a month's partition exists long before its first record; a record
 * outside every monthly partition lands in the default one).
 */
export async function ensureUsagePartitions(db: Db, now: number, monthsAhead = 3): Promise<string[]> {
  const created: string[] = [];
  const d = new Date(now);
  for (let i = 0; i <= monthsAhead; i++) {
    const from = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + i, 1));
    const to = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
    const name = monthName(from.getUTCFullYear(), from.getUTCMonth());
    const exists = await sql<{ n: number }>`SELECT 1 AS n FROM pg_class WHERE relname = ${name}`.execute(db);
    if (exists.rows.length) continue;
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(name)} PARTITION OF usage_records FOR VALUES FROM (${sql.lit(from.toISOString())}) TO (${sql.lit(to.toISOString())})`.execute(
      db,
    );
    created.push(name);
  }
  return created;
}

/**
 * Raw records older than `retentionDays` go a whole month at a time (a partition dropped, no row
 * deletes); the daily rollups keep their totals, so reports over those days still add up.
 */
export async function dropExpiredUsagePartitions(db: Db, now: number, retentionDays: number): Promise<string[]> {
  if (retentionDays <= 0) return [];
  const cutoff = now - retentionDays * 86_400_000;
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'usage_records'::regclass AND c.relname ~ '^usage_records_[0-9]{4}_[0-9]{2}$'`.execute(db);
  const dropped: string[] = [];
  for (const { name } of rows) {
    const [, y, m] = /^usage_records_(\d{4})_(\d{2})$/.exec(name)!;
    const end = Date.UTC(Number(y), Number(m), 1); // the first day of the next month
    if (end > cutoff) continue;
    await sql`DROP TABLE IF EXISTS ${sql.id(name)}`.execute(db);
    dropped.push(name);
  }
  return dropped;
}
