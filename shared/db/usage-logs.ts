import { sql } from 'kysely';
import type { Db } from './index.js';

/** Paging the account's request records, newest inserted first (stable while records keep arriving). */
export interface LogFilters {
  start?: Date;
  end?: Date;
  model?: string;
  keyId?: string;
  status?: number;
  tag?: string;
  sessionId?: string;
  /** Only records answered from the response cache (true) or only the others (false). */
  cacheHit?: boolean;
  /** Records inserted before this one (the previous page's last `seq`). */
  beforeSeq?: string;
}

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
  if (filters.cacheHit !== undefined) q = q.where('r.cache_hit', '=', filters.cacheHit);
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
      'r.cache_hit',
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
