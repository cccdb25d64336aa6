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
const GROUP: Record<GroupBy, RawBuilder<unknown>> = {
  tag: sql`t.tag`,
  model: sql`r.model`,
  key: sql`r.api_key_id::text`,
  day: sql`to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
};

/** The account's usage in [start, end) grouped one way, and the total (each request counted once). */
export async function usageReport(db: Db, userId: string, groupBy: GroupBy, start: Date, end: Date): Promise<{ rows: ReportRow[]; total: Counters }> {
  const from = groupBy === 'tag'
    ? sql`usage_records r CROSS JOIN LATERAL unnest(CASE WHEN cardinality(r.tags) = 0 THEN ARRAY[NULL::text] ELSE r.tags END) AS t(tag)`
    : sql`usage_records r`;
  const where = sql`r.user_id = ${userId} AND r.created_at >= ${start} AND r.created_at < ${end}`;
  const [grouped, total] = await Promise.all([
    sql<Record<string, unknown>>`SELECT ${GROUP[groupBy]} AS grp, ${COUNTERS} FROM ${from} WHERE ${where} GROUP BY 1 ORDER BY 1 NULLS LAST`.execute(db),
    sql<Record<string, unknown>>`SELECT ${COUNTERS} FROM usage_records r WHERE ${where}`.execute(db),
  ]);
  return {
    rows: grouped.rows.map((r) => ({ group: (r.grp as string | null) ?? null, ...counters(r) })),
    total: counters(total.rows[0] ?? {}),
  };
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
export async function usageLogs(db: Db, userId: string, filters: LogFilters, limit: number) {
  let q = db
    .selectFrom('usage_records as r')
    .leftJoin('api_keys as k', 'k.id', 'r.api_key_id')
    .select([
      'r.seq', 'r.request_id', 'r.created_at', 'r.model', 'r.endpoint', 'r.status_code', 'r.error_code', 'r.stream', 'r.input_tokens',
      'r.output_tokens', 'r.cached_tokens', 'r.charged_micro_usd', 'r.tags', 'r.latency_ms', 'r.ttft_ms', 'r.session_id', 'r.api_key_id',
      'k.prefix as key_prefix', 'r.upstream_account',
    ])
    .where('r.user_id', '=', userId);
  if (filters.start) q = q.where('r.created_at', '>=', filters.start);
  if (filters.end) q = q.where('r.created_at', '<', filters.end);
  if (filters.model) q = q.where('r.model', '=', filters.model);
  if (filters.keyId) q = q.where('r.api_key_id', '=', filters.keyId);
  if (filters.status !== undefined) q = q.where('r.status_code', '=', filters.status);
  if (filters.tag) q = q.where(sql<boolean>`${filters.tag} = ANY(r.tags)`);
  if (filters.sessionId) q = q.where('r.session_id', '=', filters.sessionId);
  if (filters.beforeSeq) q = q.where(sql<boolean>`r.seq < ${filters.beforeSeq}::bigint`);
  return q.orderBy(sql`r.seq`, 'desc').limit(limit + 1).execute();
}
