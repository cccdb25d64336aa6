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
  /** Requests answered from the response cache (counted in `requests` too). */
  cache_hits: number;
}

export interface ReportRow extends Counters {
  /** The tag, model id, key id or `YYYY-MM-DD`; null on the untagged line. */
  group: string | null;
}

function counters(row: Record<string, unknown>): Counters {
  return {
    requests: Number(row.requests),
    errors: Number(row.errors),
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    cached_tokens: Number(row.cached_tokens),
    charged_micro_usd: Number(row.charged_micro_usd),
    cache_hits: Number(row.cache_hits),
  };
}

const NO_KEY = '00000000-0000-0000-0000-000000000000';
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

type Grouped = Map<string | null, Counters>;

function add(into: Grouped, group: string | null, c: Counters, sign = 1): void {
  let have = into.get(group);
  if (!have) {
    have = { ...ZERO };
    into.set(group, have);
  }
  for (const k of Object.keys(c) as (keyof Counters)[]) have[k] += sign * c[k];
}

/** A half-open range of instants, in ms since the epoch. */
export type Span = [from: number, to: number];

/** Where each part of a report's range is read: the records, or the hourly, daily or weekly rollups. */
export interface Spans {
  records: Span[];
  hourly: Span[];
  /** Hours taken off a whole day: an edge day's whole hours read as the day less the hours outside them. */
  hourlyLess: Span[];
  daily: Span[];
  weekly: Span[];
}

const WEEK_MS = 7 * DAY_MS;
const FIRST_MONDAY = 4 * DAY_MS; // 1970-01-05: weeks run from Monday 00:00 UTC, as Postgres's date_trunc('week')

/**
 * Splits [start, end) into whole UTC weeks (when `weeks`: only the per-key rollup has them), whole
 * UTC days, the whole hours left at either edge and the partial hours left at the very edges (the
 * records): a 93-day report reads at most two hours of records, however many calls the account made.
 * More than 12 whole hours of one day are read as the day less its other hours (fewer rows).
 */
export function reportSpans(start: number, end: number, weeks = false): Spans {
  const spans: Spans = { records: [], hourly: [], hourlyLess: [], daily: [], weekly: [] };
  const levels = [
    ...(weeks ? [{ unit: WEEK_MS, origin: FIRST_MONDAY, into: spans.weekly }] : []),
    { unit: DAY_MS, origin: 0, into: spans.daily },
    { unit: HOUR_MS, origin: 0, into: spans.hourly },
  ];
  const split = (from: number, to: number, level: number): void => {
    if (from >= to) return;
    const step = levels[level];
    if (!step) {
      spans.records.push([from, to]);
      return;
    }
    const { unit, origin } = step;
    const firstWhole = Math.ceil((from - origin) / unit) * unit + origin;
    const lastWhole = Math.floor((to - origin) / unit) * unit + origin;
    if (firstWhole >= lastWhole) return split(from, to, level + 1);
    const day = Math.floor(firstWhole / DAY_MS) * DAY_MS;
    if (unit === HOUR_MS && lastWhole - firstWhole > DAY_MS / 2 && lastWhole <= day + DAY_MS) {
      spans.daily.push([day, day + DAY_MS]);
      if (day < firstWhole) spans.hourlyLess.push([day, firstWhole]);
      if (lastWhole < day + DAY_MS) spans.hourlyLess.push([lastWhole, day + DAY_MS]);
    } else step.into.push([firstWhole, lastWhole]);
    split(from, firstWhole, level + 1);
    split(lastWhole, to, level + 1);
  };
  split(start, end, 0);
  return spans;
}

const RECORD_COUNTERS = sql`count(*) AS requests, count(*) FILTER (WHERE r.status_code >= 400) AS errors,
  coalesce(sum(r.input_tokens), 0) AS input_tokens, coalesce(sum(r.output_tokens), 0) AS output_tokens,
  coalesce(sum(r.cached_tokens), 0) AS cached_tokens, coalesce(sum(r.charged_micro_usd), 0) AS charged_micro_usd,
  count(*) FILTER (WHERE r.cache_hit) AS cache_hits`;
const ROLLUP_SUMS = sql`sum(requests) AS requests, sum(errors) AS errors, sum(input_tokens) AS input_tokens,
  sum(output_tokens) AS output_tokens, sum(cached_tokens) AS cached_tokens, sum(charged_micro_usd) AS charged_micro_usd,
  sum(cache_hits) AS cache_hits`;

// A request with several tags counts on each tag line; an untagged one on the null line.
const RECORD_GROUP: Record<GroupBy, RawBuilder<unknown>> = {
  tag: sql`t.tag`,
  model: sql`r.model`,
  key: sql`r.api_key_id::text`,
  day: sql`to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
};
const ALL_TAGS = sql`usage_records r CROSS JOIN LATERAL unnest(CASE WHEN cardinality(r.tags) = 0 THEN ARRAY[NULL::text] ELSE r.tags END) AS t(tag)`;

function fromRecords(userId: string, groupBy: GroupBy, spans: Span[]) {
  const within = sql.join(
    spans.map(([from, to]) => sql`(r.created_at >= ${new Date(from)} AND r.created_at < ${new Date(to)})`),
    sql` OR `,
  );
  return sql<Record<string, unknown>>`SELECT ${RECORD_GROUP[groupBy]} AS grp, ${RECORD_COUNTERS}
    FROM ${groupBy === 'tag' ? ALL_TAGS : sql`usage_records r`} WHERE r.user_id = ${userId} AND (${within}) GROUP BY 1`;
}

// Per rollup dimension: its table suffix and the group it reads ('' = untagged, the zero uuid = no key).
const ROLLUP_GROUP: Record<GroupBy, { table: string; group: (period: RawBuilder<unknown>) => RawBuilder<unknown> }> = {
  tag: { table: 'tags', group: () => sql`nullif(tag, '')` },
  model: { table: 'models', group: () => sql`model` },
  key: { table: 'keys', group: () => sql`nullif(api_key_id, ${NO_KEY}::uuid)::text` },
  day: { table: 'models', group: (period) => sql`to_char(${period}, 'YYYY-MM-DD')` },
};

const PERIOD_COLUMN = { hourly: 'hour', daily: 'day', weekly: 'week' } as const;

function fromRollups(userId: string, groupBy: GroupBy, period: keyof typeof PERIOD_COLUMN, spans: Span[]) {
  const column = sql.ref(PERIOD_COLUMN[period]);
  // `hour` is a UTC hour (timestamptz): its UTC date is the day it belongs to.
  const asDay = period === 'hourly' ? sql`(hour AT TIME ZONE 'UTC')` : column;
  const bound = (ms: number) =>
    period === 'hourly' ? sql`${new Date(ms)}` : sql`${new Date(ms).toISOString().slice(0, 10)}::date`;
  const within = sql.join(
    spans.map(([from, to]) => sql`(${column} >= ${bound(from)} AND ${column} < ${bound(to)})`),
    sql` OR `,
  );
  const { table, group } = ROLLUP_GROUP[groupBy];
  return sql<Record<string, unknown>>`SELECT ${group(asDay)} AS grp, ${ROLLUP_SUMS}
    FROM ${sql.table(`usage_${period}_${table}`)} WHERE user_id = ${userId} AND (${within}) GROUP BY 1`;
}

/** The account's usage over the spans, grouped one way: each source read in its own statement, at once. */
async function grouped(db: Db, userId: string, groupBy: GroupBy, spans: Spans): Promise<Grouped> {
  const sources: Array<[spans: Span[], read: (spans: Span[]) => ReturnType<typeof fromRecords>, sign: number]> = [
    [spans.records, (s) => fromRecords(userId, groupBy, s), 1],
    [spans.hourly, (s) => fromRollups(userId, groupBy, 'hourly', s), 1],
    [spans.hourlyLess, (s) => fromRollups(userId, groupBy, 'hourly', s), -1],
    [spans.daily, (s) => fromRollups(userId, groupBy, 'daily', s), 1],
    [spans.weekly, (s) => fromRollups(userId, groupBy, 'weekly', s), 1],
  ];
  const read = sources.filter(([s]) => s.length > 0);
  const results = await Promise.all(read.map(([s, statement]) => statement(s).execute(db)));
  const into: Grouped = new Map();
  for (const [i, result] of results.entries()) {
    for (const r of result.rows) add(into, (r.grp as string | null) ?? null, counters(r), read[i]![2]);
  }
  return into;
}

const ZERO: Counters = {
  requests: 0,
  errors: 0,
  input_tokens: 0,
  output_tokens: 0,
  cached_tokens: 0,
  charged_micro_usd: 0,
  cache_hits: 0,
};

/** The sum of groups that hold every request once (not tags: a request counts on each of its tags). */
function sumOf(groups: Grouped): Counters {
  const total: Grouped = new Map([[null, { ...ZERO }]]);
  for (const c of groups.values()) add(total, null, c);
  return total.get(null)!;
}

async function report(db: Db, userId: string, groupBy: GroupBy, spans: Spans) {
  const [groups, byModel] = await Promise.all([
    grouped(db, userId, groupBy, spans),
    groupBy === 'tag' ? grouped(db, userId, 'model', spans) : undefined,
  ]);
  const rows = [...groups].map(([group, c]) => ({ group, ...c })).filter((r) => r.requests > 0);
  rows.sort((a, b) =>
    a.group === null ? 1 : b.group === null ? -1 : a.group < b.group ? -1 : a.group > b.group ? 1 : 0,
  );
  return { rows, total: sumOf(byModel ?? groups) };
}

/**
 * The account's usage in [start, end) grouped one way, and the total (each request counted once).
 * Whole UTC days (and by key whole weeks) come from the rollups the usage drain keeps, the whole hours
 * of the edge days from its hourly rollups, and only the partial hours at the very edges from the records
 * (docs/decisions/0010-usage-rollups.md).
 */
export function usageReport(
  db: Db,
  userId: string,
  groupBy: GroupBy,
  start: Date,
  end: Date,
): Promise<{ rows: ReportRow[]; total: Counters }> {
  return report(db, userId, groupBy, reportSpans(start.getTime(), end.getTime(), groupBy === 'key'));
}

/** The same report computed from the records alone (the baseline the benchmark and tests compare against). */
export function usageReportFromRecords(
  db: Db,
  userId: string,
  groupBy: GroupBy,
  start: Date,
  end: Date,
): Promise<{ rows: ReportRow[]; total: Counters }> {
  const spans: Spans = {
    records: [[start.getTime(), end.getTime()]],
    hourly: [],
    hourlyLess: [],
    daily: [],
    weekly: [],
  };
  return report(db, userId, groupBy, spans);
}
