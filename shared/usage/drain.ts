import { sql } from 'kysely';
import type { Redis } from 'ioredis';
import type { Db } from '../db/index.js';
import type { RedisKeys } from '../redis/keys.js';
import type { UsageEvent } from './record.js';

/** A drainer that stops mid-batch loses the lock after this long; another then replays the batch. */
const LOCK_TTL_MS = 30_000;

/** A queued record: the usage event as the API wrote it, with the charge the STEP script settled. */
export type QueuedRecord = UsageEvent & { charged_micro_usd: number };

/**
 * Moves one batch of usage records from the Redis queue into Postgres: records, balances and ledger
 * entries in one statement, idempotent by usage id (a replayed record inserts nothing and moves no
 * money). Only after the commit are the records taken off the queue. A record Postgres refuses is
 * kept in the dead-letter list (`keys.usageDead`) instead of blocking the queue; its charge stays
 * counted as undrained, so Redis and the ledger keep agreeing on what the account was charged.
 * Returns the records handled; 0 when the queue is empty or another drainer holds the lock.
 */
export async function drainUsageBatch(db: Db, redis: Redis, keys: RedisKeys, token: string, batch: number): Promise<number> {
  const raw = (await redis.gwClaimUsage(keys.usageQueue, keys.usageLock, token, LOCK_TTL_MS, batch)) as string[] | null;
  if (!raw || raw.length === 0) return 0;
  const records: QueuedRecord[] = [];
  const texts: string[] = [];
  const refused: string[] = [];
  for (const text of raw) {
    try {
      records.push(JSON.parse(text) as QueuedRecord);
      texts.push(text);
    } catch {
      refused.push(text);
    }
  }
  const rejected = await writeOrIsolate(db, records);
  const written = rejected.size === 0 ? records : records.filter((_, i) => !rejected.has(i));
  for (const i of rejected) refused.push(texts[i]!);
  await redis.gwAckUsage(keys.usageQueue, keys.usageLock, keys.usageDead, token, raw.length, refused.length, ...refused, ...undrainedDeltas(keys, written));
  return raw.length;
}

/** Writes the batch; if Postgres refuses it, writes its records one by one: the indexes of those it refuses. */
async function writeOrIsolate(db: Db, records: QueuedRecord[]): Promise<Set<number>> {
  const rejected = new Set<number>();
  if (records.length === 0) return rejected;
  try {
    await writeBatch(db, records);
    return rejected;
  } catch (err) {
    // Postgres being away is not the records' fault: the whole batch stays queued.
    if (!isDataError(err)) throw err;
  }
  for (const [i, record] of records.entries()) {
    try {
      await writeBatch(db, [record]);
    } catch (err) {
      if (!isDataError(err)) throw err;
      rejected.add(i);
    }
  }
  return rejected;
}

// SQLSTATE classes 22 (data exception) and 23 (integrity constraint violation): the record itself is bad.
function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

/** (counter, amount) pairs: what the written records' charges take off the undrained counters. */
function undrainedDeltas(keys: RedisKeys, records: QueuedRecord[]): (string | number)[] {
  const sums = new Map<string, number>();
  const add = (counter: string, amount: number) => sums.set(counter, (sums.get(counter) ?? 0) + amount);
  for (const r of records) {
    if (!(r.charged_micro_usd > 0)) continue;
    add(keys.undrained(r.user_id), r.charged_micro_usd);
    if (r.api_key_id) add(keys.keyUndrained(r.api_key_id), r.charged_micro_usd);
  }
  const out: (string | number)[] = [];
  for (const [counter, amount] of sums) out.push(counter, amount);
  return out;
}

async function writeBatch(db: Db, records: QueuedRecord[]): Promise<void> {
  // One array per column: Postgres reads them with unnest much faster than a JSON document.
  const c = {
    id: [] as string[],
    requestId: [] as string[],
    userId: [] as string[],
    keyId: [] as (string | null)[],
    model: [] as string[],
    provider: [] as (string | null)[],
    endpoint: [] as string[],
    status: [] as number[],
    errorCode: [] as (string | null)[],
    stream: [] as boolean[],
    input: [] as number[],
    output: [] as number[],
    cached: [] as number[],
    estimated: [] as boolean[],
    charged: [] as number[],
    tags: [] as string[],
    latency: [] as (number | null)[],
    ttft: [] as (number | null)[],
    account: [] as (string | null)[],
    templateVersion: [] as (string | null)[],
    session: [] as (string | null)[],
    surface: [] as (string | null)[],
    createdAt: [] as string[],
  };
  for (const r of records) {
    c.id.push(r.id);
    c.requestId.push(r.request_id);
    c.userId.push(r.user_id);
    c.keyId.push(r.api_key_id);
    c.model.push(r.model);
    c.provider.push(r.provider);
    c.endpoint.push(r.endpoint);
    c.status.push(r.status_code);
    c.errorCode.push(r.error_code);
    c.stream.push(r.stream);
    c.input.push(r.input_tokens);
    c.output.push(r.output_tokens);
    c.cached.push(r.cached_tokens);
    c.estimated.push(r.usage_estimated);
    c.charged.push(r.charged_micro_usd);
    // Tags are a list per record: each travels as its JSON text and is unpacked in SQL.
    c.tags.push(r.tags.length === 0 ? '' : JSON.stringify(r.tags));
    c.latency.push(r.latency_ms);
    c.ttft.push(r.ttft_ms);
    c.account.push(r.upstream_account ?? null);
    c.templateVersion.push(r.template_version_id ?? null);
    c.session.push(r.session_id ?? null);
    c.surface.push(r.surface ?? null);
    c.createdAt.push(r.created_at);
  }
  // Window sums give each charge its balance_after within one account, in the order of the calls.
  await sql`
    WITH input AS (
      SELECT * FROM unnest(
        ${c.id}::text[], ${c.requestId}::text[], ${c.userId}::uuid[], ${c.keyId}::uuid[], ${c.model}::text[], ${c.provider}::text[],
        ${c.endpoint}::text[], ${c.status}::int[], ${c.errorCode}::text[], ${c.stream}::boolean[], ${c.input}::int[], ${c.output}::int[],
        ${c.cached}::int[], ${c.estimated}::boolean[], ${c.charged}::bigint[], ${c.tags}::text[], ${c.latency}::int[], ${c.ttft}::int[],
        ${c.account}::text[], ${c.templateVersion}::uuid[], ${c.session}::text[], ${c.surface}::text[], ${c.createdAt}::timestamptz[]
      ) AS r(id, request_id, user_id, api_key_id, model, provider, endpoint, status_code, error_code, stream, input_tokens,
        output_tokens, cached_tokens, usage_estimated, charged_micro_usd, tags, latency_ms, ttft_ms, upstream_account,
        template_version_id, session_id, surface, created_at)
    ), inserted AS (
      INSERT INTO usage_records (id, request_id, user_id, api_key_id, model, provider, endpoint, status_code, error_code, stream,
        input_tokens, output_tokens, cached_tokens, usage_estimated, charged_micro_usd, tags, latency_ms, ttft_ms, upstream_account,
        template_version_id, session_id, surface, created_at)
      SELECT id, request_id, user_id, api_key_id, model, provider, endpoint, status_code, error_code, stream,
        input_tokens, output_tokens, cached_tokens, usage_estimated, charged_micro_usd,
        CASE WHEN tags = '' THEN '{}'::text[] ELSE ARRAY(SELECT json_array_elements_text(tags::json)) END,
        latency_ms, ttft_ms, upstream_account, template_version_id, session_id, surface, created_at
      FROM input
      ON CONFLICT (id, created_at) DO NOTHING
      RETURNING id, user_id, api_key_id, model, status_code, input_tokens, output_tokens, cached_tokens, charged_micro_usd, tags, created_at
    ), daily_models AS (
      INSERT INTO usage_daily_models AS d (user_id, day, model, requests, errors, input_tokens, output_tokens, cached_tokens, charged_micro_usd)
      SELECT user_id, (created_at AT TIME ZONE 'UTC')::date, model,
        count(*), count(*) FILTER (WHERE status_code >= 400), sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(charged_micro_usd)
      FROM inserted GROUP BY 1, 2, 3
      ON CONFLICT (user_id, day, model) DO UPDATE SET requests = d.requests + excluded.requests, errors = d.errors + excluded.errors,
        input_tokens = d.input_tokens + excluded.input_tokens, output_tokens = d.output_tokens + excluded.output_tokens,
        cached_tokens = d.cached_tokens + excluded.cached_tokens, charged_micro_usd = d.charged_micro_usd + excluded.charged_micro_usd
    ), daily_keys AS (
      INSERT INTO usage_daily_keys AS d (user_id, day, api_key_id, requests, errors, input_tokens, output_tokens, cached_tokens, charged_micro_usd)
      SELECT user_id, (created_at AT TIME ZONE 'UTC')::date, coalesce(api_key_id, '00000000-0000-0000-0000-000000000000'),
        count(*), count(*) FILTER (WHERE status_code >= 400), sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(charged_micro_usd)
      FROM inserted GROUP BY 1, 2, 3
      ON CONFLICT (user_id, day, api_key_id) DO UPDATE SET requests = d.requests + excluded.requests, errors = d.errors + excluded.errors,
        input_tokens = d.input_tokens + excluded.input_tokens, output_tokens = d.output_tokens + excluded.output_tokens,
        cached_tokens = d.cached_tokens + excluded.cached_tokens, charged_micro_usd = d.charged_micro_usd + excluded.charged_micro_usd
    ), daily_tags AS (
      INSERT INTO usage_daily_tags AS d (user_id, day, tag, requests, errors, input_tokens, output_tokens, cached_tokens, charged_micro_usd)
      SELECT i.user_id, (i.created_at AT TIME ZONE 'UTC')::date, t.tag,
        count(*), count(*) FILTER (WHERE i.status_code >= 400), sum(i.input_tokens), sum(i.output_tokens), sum(i.cached_tokens), sum(i.charged_micro_usd)
      FROM inserted i CROSS JOIN LATERAL unnest(CASE WHEN cardinality(i.tags) = 0 THEN ARRAY['']::text[] ELSE i.tags END) AS t(tag)
      GROUP BY 1, 2, 3
      ON CONFLICT (user_id, day, tag) DO UPDATE SET requests = d.requests + excluded.requests, errors = d.errors + excluded.errors,
        input_tokens = d.input_tokens + excluded.input_tokens, output_tokens = d.output_tokens + excluded.output_tokens,
        cached_tokens = d.cached_tokens + excluded.cached_tokens, charged_micro_usd = d.charged_micro_usd + excluded.charged_micro_usd
    ), charges AS (
      SELECT id, user_id, charged_micro_usd AS amount,
        sum(charged_micro_usd) OVER (PARTITION BY user_id ORDER BY created_at, id) AS running,
        sum(charged_micro_usd) OVER (PARTITION BY user_id) AS total
      FROM inserted WHERE charged_micro_usd > 0
    ), moved AS (
      UPDATE users u SET balance_micro_usd = u.balance_micro_usd - t.total, updated_at = now()
      FROM (SELECT user_id, max(total) AS total FROM charges GROUP BY user_id) t
      WHERE u.id = t.user_id
      RETURNING u.id, u.balance_micro_usd + t.total AS before
    )
    INSERT INTO ledger_entries (user_id, kind, amount_micro_usd, balance_after_micro_usd, request_id)
    SELECT c.user_id, 'charge', -c.amount, m.before - c.running, c.id
    FROM charges c JOIN moved m ON m.id = c.user_id
    ORDER BY c.user_id, c.running`.execute(db);
}

/** The consumer group the stream-based drain of earlier releases read with. */
const LEGACY_GROUP = 'usage-drain';
/** A legacy drainer silent this long is gone (they read at least every second): its entries can move. */
const LEGACY_IDLE_MS = 30_000;
const LEGACY_MOVE_BATCH = 1_000;

/**
 * Moves records an earlier release left in its usage stream onto the queue, so an upgrade loses
 * none of them. Waits while a drainer of that release still reads the stream (a rolling upgrade):
 * moving entries it may be writing would lower their undrained counters twice. Returns the moved.
 */
export async function moveLegacyUsage(redis: Redis, keys: RedisKeys): Promise<number> {
  const stream = keys.legacyUsageStream;
  if ((await redis.exists(stream)) === 0 || (await legacyDrainerActive(redis, stream))) return 0;
  let moved = 0;
  for (;;) {
    const n = Number(await redis.gwMoveLegacyUsage(stream, keys.usageQueue, LEGACY_MOVE_BATCH));
    moved += n;
    if (n < LEGACY_MOVE_BATCH) return moved;
  }
}

async function legacyDrainerActive(redis: Redis, stream: string): Promise<boolean> {
  let consumers: unknown[][];
  try {
    consumers = (await redis.xinfo('CONSUMERS', stream, LEGACY_GROUP)) as unknown[][];
  } catch {
    return false; // no such group: nobody ever drained it that way
  }
  return consumers.some((fields) => Number(fields[fields.indexOf('idle') + 1]) < LEGACY_IDLE_MS);
}

/** True when every queued record is in Postgres (the queue is empty and no batch is in flight). */
export async function usageDrained(redis: Redis, keys: RedisKeys): Promise<boolean> {
  const [length, locked] = await Promise.all([redis.llen(keys.usageQueue), redis.exists(keys.usageLock)]);
  return length === 0 && locked === 0;
}
