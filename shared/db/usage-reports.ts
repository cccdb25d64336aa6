import { sql, type RawBuilder } from 'kysely';
import type { Db } from './index.js';

export type GroupBy = 'tag' | 'model' | 'key' | 'day';

export interface Counters {
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  charged_micro_usd: number;
}

export interface ReportRow extends Counters {
  /** The tag, model id, key id or `YYYY-MM-DD`; null on the untagged line. */
  group: string | null;
}

const COUNTERS = sql`count(*) AS requests, count(*) FILTER (WHERE status_code >= 400) AS errors,
  coalesce(sum(input_tokens), 0) AS input_tokens, coalesce(sum(output_tokens), 0) AS output_tokens,
  coalesce(sum(cached_tokens), 0) AS cached_tokens, coalesce(sum(charged_micro_usd), 0) AS charged_micro_usd`;

function counters(row: Record<string, unknown>): Counters {
  return {
    requests: Number(row.requests),
    errors: Number(row.errors),
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    cached_tokens: Number(row.cached_tokens),
    charged_micro_usd: Number(row.charged_micro_usd),
  };
}

// A request with several tags counts on each tag line; an untagged one on the null line.
const RECORD_GROUP: Record<GroupBy, RawBuilder<unknown>> = {
  tag: sql`t.tag`,
  model: sql`r.model`,
  key: sql`r.api_key_id::text`,
  day: sql`to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
};
const NO_KEY = '00000000-0000-0000-0000-000000000000';
const DAY_MS = 86_400_000;

type Grouped = Map<string | null, Counters>;

function add(into: Grouped, group: string | null, c: Counters): void {
  const have = into.get(group);
  if (!have) {
    into.set(group, { ...c });
    return;
  }
  for (const k of Object.keys(c) as (keyof Counters)[]) have[k] += c[k];
}

/** From the records, for a range shorter than a day (the partial days at a report's edges). */
async function fromRecords(
  db: Db,
  userId: string,
  groupBy: GroupBy,
  start: Date,
  end: Date,
  into: Grouped,
  total: Grouped,
): Promise<void> {
  if (end <= start) return;
  const from =
    groupBy === 'tag'
      ? sql`usage_records r CROSS JOIN LATERAL unnest(CASE WHEN cardinality(r.tags) = 0 THEN ARRAY[NULL::text] ELSE r.tags END) AS t(tag)`
      : sql`usage_records r`;
  const where = sql`r.user_id = ${userId} AND r.created_at >= ${start} AND r.created_at < ${end}`;
  const [grouped, sum] = await Promise.all([
    sql<
      Record<string, unknown>
    >`SELECT ${RECORD_GROUP[groupBy]} AS grp, ${COUNTERS} FROM ${from} WHERE ${where} GROUP BY 1`.execute(db),
    sql<Record<string, unknown>>`SELECT ${COUNTERS} FROM usage_records r WHERE ${where}`.execute(db),
  ]);
  for (const r of grouped.rows) add(into, (r.grp as string | null) ?? null, counters(r));
  add(total, 'total', counters(sum.rows[0] ?? {}));
}

/** From the daily rollups, for whole UTC days [fromDay, toDay). */
async function fromRollups(
  db: Db,
  userId: string,
  groupBy: GroupBy,
  fromDay: string,
  toDay: string,
  into: Grouped,
  total: Grouped,
): Promise<void> {
  const range = sql`user_id = ${userId} AND day >= ${fromDay}::date AND day < ${toDay}::date`;
  const SUMS = sql`sum(requests) AS requests, sum(errors) AS errors, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
    sum(cached_tokens) AS cached_tokens, sum(charged_micro_usd) AS charged_micro_usd`;
  const grouped =
    groupBy === 'tag'
      ? sql<
          Record<string, unknown>
        >`SELECT nullif(tag, '') AS grp, ${SUMS} FROM usage_daily_tags WHERE ${range} GROUP BY 1`
      : groupBy === 'model'
        ? sql<Record<string, unknown>>`SELECT model AS grp, ${SUMS} FROM usage_daily_models WHERE ${range} GROUP BY 1`
        : groupBy === 'key'
          ? sql<
              Record<string, unknown>
            >`SELECT nullif(api_key_id, ${NO_KEY}::uuid)::text AS grp, ${SUMS} FROM usage_daily_keys WHERE ${range} GROUP BY 1`
          : sql<
              Record<string, unknown>
            >`SELECT to_char(day, 'YYYY-MM-DD') AS grp, ${SUMS} FROM usage_daily_models WHERE ${range} GROUP BY 1`;
  // Every request once: the per-model rollup (few rows a day) gives the total.
  const [rows, sum] = await Promise.all([
    grouped.execute(db),
    sql<Record<string, unknown>>`SELECT ${SUMS} FROM usage_daily_models WHERE ${range}`.execute(db),
  ]);
  for (const r of rows.rows) add(into, (r.grp as string | null) ?? null, counters(r));
  add(total, 'total', counters(sum.rows[0] ?? {}));
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The account's usage in [start, end) grouped one way, and the total (each request counted once).
 * Whole UTC days come from the daily rollups the usage drain keeps (usage_daily_models, _keys, _tags);
 * only the partial days at the edges are read from the records, so a 93-day report reads at most
 * two days of records however many calls the account made.
 */
export async function usageReport(
  db: Db,
  userId: string,
  groupBy: GroupBy,
  start: Date,
  end: Date,
): Promise<{ rows: ReportRow[]; total: Counters }> {
  const groups: Grouped = new Map();
  const total: Grouped = new Map();
  const firstWhole = Math.ceil(start.getTime() / DAY_MS) * DAY_MS;
  const lastWhole = Math.floor(end.getTime() / DAY_MS) * DAY_MS;
  if (firstWhole < lastWhole) {
    await Promise.all([
      fromRecords(db, userId, groupBy, start, new Date(firstWhole), groups, total),
      fromRollups(db, userId, groupBy, dayOf(firstWhole), dayOf(lastWhole), groups, total),
      fromRecords(db, userId, groupBy, new Date(lastWhole), end, groups, total),
    ]);
  } else {
    await fromRecords(db, userId, groupBy, start, end, groups, total);
  }
  const rows = [...groups].map(([group, c]) => ({ group, ...c }));
  rows.sort((a, b) =>
    a.group === null ? 1 : b.group === null ? -1 : a.group < b.group ? -1 : a.group > b.group ? 1 : 0,
  );
  const zero: Counters = {
    requests: 0,
    errors: 0,
    input_tokens: 0,
    output_tokens: 0,
    cached_tokens: 0,
    charged_micro_usd: 0,
  };
  return { rows: rows.filter((r) => r.requests > 0), total: total.get('total') ?? zero };
}

/** The same report computed from the records alone (the baseline the benchmark compares against). */
export async function usageReportFromRecords(
  db: Db,
  userId: string,
  groupBy: GroupBy,
  start: Date,
  end: Date,
): Promise<{ rows: ReportRow[]; total: Counters }> {
  const groups: Grouped = new Map();
  const total: Grouped = new Map();
  await fromRecords(db, userId, groupBy, start, end, groups, total);
  return { rows: [...groups].map(([group, c]) => ({ group, ...c })), total: total.get('total')! };
}

export interface LogFilters {
  start?: Date;
  end?: Date;
  model?: string;
  keyId?: string;
  status?: number;
  tag?: string;
  sessionId?: string;
  /** Records inserted before this one (the previous page's last `seq`). */
  beforeSeq?: string;
}

/** A page of the account's request records, newest inserted first (stable while records keep arriving). */
/** The records of an owner that the filters select (cursor: `beforeSeq`), unordered and unlimited. */
function filteredLogs(db: Db, userId: string, filters: LogFilters) {
  let q = db.selectFrom('usage_records as r').where('r.user_id', '=', userId);
  if (filters.start) q = q.where('r.created_at', '>=', filters.start);
  if (filters.end) q = q.where('r.created_at', '<', filters.end);
  if (filters.model) q = q.where('r.model', '=', filters.model);
  if (filters.keyId) q = q.where('r.api_key_id', '=', filters.keyId);
  if (filters.status !== undefined) q = q.where('r.status_code', '=', filters.status);
  if (filters.tag) q = q.where(sql<boolean>`${filters.tag} = ANY(r.tags)`);
  if (filters.sessionId) q = q.where('r.session_id', '=', filters.sessionId);
  if (filters.beforeSeq) q = q.where(sql<boolean>`r.seq < ${filters.beforeSeq}::bigint`);
  return q;
}

/** Newest first: `limit + 1` records from `offset` (the extra one says whether there is more). */
export async function usageLogs(db: Db, userId: string, filters: LogFilters, limit: number, offset = 0) {
  return filteredLogs(db, userId, filters)
    .leftJoin('api_keys as k', 'k.id', 'r.api_key_id')
    .select([
      'r.seq',
      'r.request_id',
      'r.created_at',
      'r.model',
      'r.endpoint',
      'r.status_code',
      'r.error_code',
      'r.stream',
      'r.input_tokens',
      'r.output_tokens',
      'r.cached_tokens',
      'r.charged_micro_usd',
      'r.tags',
      'r.latency_ms',
      'r.ttft_ms',
      'r.session_id',
      'r.api_key_id',
      'k.prefix as key_prefix',
      'r.upstream_account',
      'r.template_version_id',
    ])
    .orderBy(sql`r.seq`, 'desc')
    .limit(limit + 1)
    .offset(offset)
    .execute();
}

/** How many records the filters select (the console's paginated envelope). */
export async function countUsageLogs(db: Db, userId: string, filters: LogFilters): Promise<number> {
  const row = await filteredLogs(db, userId, filters)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
