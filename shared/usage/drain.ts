import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import type { Redis } from 'ioredis';
import { rawClient, type Db } from '../db/index.js';
import type { RedisKeys } from '../redis/keys.js';

/** A drainer that stops mid-batch loses the lock after this long; another then replays the batch. */
const LOCK_TTL_MS = 30_000;

/**
 * Moves one batch of usage records from the Redis queue into Postgres: records, balances and ledger
 * entries in one statement, idempotent by usage id (a replayed record inserts nothing and moves no
 * money). Only after the commit are the records taken off the queue. A record Postgres refuses is
 * kept in the dead-letter list (`keys.usageDead`) instead of blocking the queue; its charge stays
 * counted as undrained, so Redis and the ledger keep agreeing on what the account was charged.
 * Returns the records handled; 0 when the queue is empty or another drainer holds the lock.
 *
 * The worker never parses a record: the queued JSON texts go to Postgres as they are, by COPY, and
 * Postgres reads their fields (docs/decisions/0007-usage-drain-by-copy.md).
 */
export async function drainUsageBatch(
  db: Db,
  redis: Redis,
  keys: RedisKeys,
  token: string,
  batch: number,
  onOverReservation?: (records: number) => void,
): Promise<number> {
  const raw = await redis.gwClaimUsageBuffer(keys.usageQueue, keys.usageLock, token, LOCK_TTL_MS, batch);
  if (!raw || raw.length === 0) return 0;
  const { rejected, charges } = await writeOrIsolate(db, raw);
  const refused = [...rejected].map((i) => raw[i]!);
  await redis.gwAckUsage(
    keys.usageQueue,
    keys.usageLock,
    keys.usageDead,
    token,
    raw.length,
    refused.length,
    ...refused,
    ...undrainedDeltas(keys, charges),
  );
  const over = charges.reduce((sum, c) => sum + c.over, 0);
  if (over > 0) onOverReservation?.(over);
  return raw.length;
}

interface Charged {
  user_id: string;
  api_key_id: string | null;
  charged: number;
  /** Records charged beyond their reservation. */
  over: number;
}

/**
 * Writes the batch; if Postgres refuses it, writes its records one by one. → the indexes of the
 * records it refuses, and the charges (per account and key) of those it took.
 */
async function writeOrIsolate(db: Db, texts: Buffer[]): Promise<{ rejected: Set<number>; charges: Charged[] }> {
  const rejected = new Set<number>();
  try {
    return { rejected, charges: await writeBatch(db, texts) };
  } catch (err) {
    // Postgres being away is not the records' fault: the whole batch stays queued.
    if (!isDataError(err)) throw err;
  }
  const charges: Charged[] = [];
  for (const [i, text] of texts.entries()) {
    try {
      charges.push(...(await writeBatch(db, [text])));
    } catch (err) {
      if (!isDataError(err)) throw err;
      rejected.add(i);
    }
  }
  return { rejected, charges };
}

// SQLSTATE classes 22 (data exception: malformed JSON or a field of the wrong type) and 23
// (integrity constraint violation: a field missing): the record itself is bad.
function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

/** (counter, amount) pairs: what the written records' charges take off the undrained counters. */
function undrainedDeltas(keys: RedisKeys, charges: Charged[]): (string | number)[] {
  const sums = new Map<string, number>();
  const add = (counter: string, amount: number) => sums.set(counter, (sums.get(counter) ?? 0) + amount);
  for (const c of charges) {
    add(keys.undrained(c.user_id), c.charged);
    if (c.api_key_id) add(keys.keyUndrained(c.api_key_id), c.charged);
  }
  const out: (string | number)[] = [];
  for (const [counter, amount] of sums) out.push(counter, amount);
  return out;
}

// One staging table per connection (temporary), emptied by every commit: a row is a queued record's JSON.
const CREATE_STAGE = 'CREATE TEMPORARY TABLE IF NOT EXISTS usage_stage (doc jsonb) ON COMMIT DELETE ROWS';
// CSV with a quote and a delimiter no JSON text holds raw (JSON escapes every control character):
// each line goes in as it is, with nothing to escape.
const COPY_STAGE = "COPY usage_stage (doc) FROM STDIN WITH (FORMAT csv, DELIMITER E'\\x02', QUOTE E'\\x01')";

/**
 * Writes a batch in one transaction: the records' JSON texts go to a staging table by COPY, then one
 * statement moves them into usage_records, the rollups, balances and the ledger. → the charges.
 */
async function writeBatch(db: Db, texts: Buffer[]): Promise<Charged[]> {
  const client = await rawClient(db);
  let broken = false;
  try {
    await client.query('BEGIN');
    await client.query(CREATE_STAGE);
    await pipeline(Readable.from([copyLines(texts)]), client.query(copyFrom(COPY_STAGE)));
    const { rows } = await client.query<Charged>(MOVE_STAGED);
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => (broken = true));
    throw err;
  } finally {
    client.release(broken);
  }
}

const NEWLINE = Buffer.from('\n');

/** The records, one per line, as one Buffer. */
function copyLines(texts: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const text of texts) parts.push(text, NEWLINE);
  return Buffer.concat(parts);
}

const NO_KEY = "'00000000-0000-0000-0000-000000000000'::uuid";
const SUMS = `count(*), count(*) FILTER (WHERE i.status_code >= 400), sum(i.input_tokens), sum(i.output_tokens),
  sum(i.cached_tokens), sum(i.charged_micro_usd), count(*) FILTER (WHERE i.cache_hit)`;
const COUNTERS = 'requests, errors, input_tokens, output_tokens, cached_tokens, charged_micro_usd, cache_hits';
const ADD_COUNTERS = COUNTERS.split(', ')
  .map((c) => `${c} = d.${c} + excluded.${c}`)
  .join(', ');
// A request counts once by model and by key (no key: the zero uuid), and on each of its tags ('' = untagged).
const DIMENSIONS = [
  { table: 'models', column: 'model', value: 'i.model', from: 'inserted i' },
  { table: 'keys', column: 'api_key_id', value: `coalesce(i.api_key_id, ${NO_KEY})`, from: 'inserted i' },
  {
    table: 'tags',
    column: 'tag',
    value: 't.tag',
    from: "inserted i CROSS JOIN LATERAL unnest(CASE WHEN cardinality(i.tags) = 0 THEN ARRAY['']::text[] ELSE i.tags END) AS t(tag)",
  },
];
const PERIODS = {
  daily: { column: 'day', value: "(i.created_at AT TIME ZONE 'UTC')::date" },
  // Truncated in UTC whatever the session's time zone (a half-hour offset would split UTC hours).
  hourly: { column: 'hour', value: "date_trunc('hour', i.created_at, 'UTC')" },
  weekly: { column: 'week', value: "date_trunc('week', i.created_at AT TIME ZONE 'UTC')::date" },
};
type Period = keyof typeof PERIODS;
// Per UTC day and hour (the report's whole days and edge hours) for every dimension; per week by
// key too (an account with many keys has a row per key and day).
const KEPT: Array<[Period, (typeof DIMENSIONS)[number]]> = [
  ...(['daily', 'hourly'] as const).flatMap((p) =>
    DIMENSIONS.map((d) => [p, d] as [Period, (typeof DIMENSIONS)[number]]),
  ),
  ['weekly', DIMENSIONS[1]!],
];
/** The statement's rollup upserts. */
const ROLLUPS = KEPT.map(([name, d]) => {
  const p = PERIODS[name];
  return `${name}_${d.table} AS (
      INSERT INTO usage_${name}_${d.table} AS d (user_id, ${p.column}, ${d.column}, ${COUNTERS})
      SELECT i.user_id, ${p.value}, ${d.value}, ${SUMS} FROM ${d.from} GROUP BY 1, 2, 3
      ON CONFLICT (user_id, ${p.column}, ${d.column}) DO UPDATE SET ${ADD_COUNTERS}
    )`;
});

// Fields a record of an earlier release lacks read as NULL. Window sums give each charge its
// balance_after within one account, in the order of the calls.
const MOVE_STAGED = `
    WITH input AS (
      SELECT doc->>'id' AS id, doc->>'request_id' AS request_id, (doc->>'user_id')::uuid AS user_id,
        (doc->>'api_key_id')::uuid AS api_key_id, doc->>'model' AS model, doc->>'provider' AS provider,
        doc->>'endpoint' AS endpoint, (doc->>'status_code')::int AS status_code, doc->>'error_code' AS error_code,
        (doc->>'stream')::boolean AS stream, (doc->>'input_tokens')::int AS input_tokens,
        (doc->>'output_tokens')::int AS output_tokens, (doc->>'cached_tokens')::int AS cached_tokens,
        (doc->>'usage_estimated')::boolean AS usage_estimated, coalesce((doc->>'over_reservation')::boolean, false) AS over_reservation,
        (doc->>'charged_micro_usd')::bigint AS charged_micro_usd,
        ARRAY(SELECT jsonb_array_elements_text(coalesce(doc->'tags', '[]'::jsonb))) AS tags,
        (doc->>'latency_ms')::int AS latency_ms, (doc->>'ttft_ms')::int AS ttft_ms, doc->>'upstream_account' AS upstream_account,
        (doc->>'template_version_id')::uuid AS template_version_id, doc->>'session_id' AS session_id,
        doc->>'surface' AS surface, coalesce((doc->>'cache_hit')::boolean, false) AS cache_hit,
        (doc->>'created_at')::timestamptz AS created_at
      FROM usage_stage
    ), inserted AS (
      INSERT INTO usage_records (id, request_id, user_id, api_key_id, model, provider, endpoint, status_code, error_code, stream,
        input_tokens, output_tokens, cached_tokens, usage_estimated, over_reservation, charged_micro_usd, tags, latency_ms, ttft_ms, upstream_account,
        template_version_id, session_id, surface, cache_hit, created_at)
      SELECT id, request_id, user_id, api_key_id, model, provider, endpoint, status_code, error_code, stream,
        input_tokens, output_tokens, cached_tokens, usage_estimated, over_reservation, charged_micro_usd,
        tags,
        latency_ms, ttft_ms, upstream_account, template_version_id, session_id, surface, cache_hit, created_at
      FROM input
      ON CONFLICT (id, created_at) DO NOTHING
      RETURNING id, user_id, api_key_id, model, status_code, input_tokens, output_tokens, cached_tokens, charged_micro_usd, tags, cache_hit, created_at
    ), ${ROLLUPS.join(', ')}, charges AS (
      SELECT id, user_id, charged_micro_usd AS amount,
        sum(charged_micro_usd) OVER (PARTITION BY user_id ORDER BY created_at, id) AS running,
        sum(charged_micro_usd) OVER (PARTITION BY user_id) AS total
      FROM inserted WHERE charged_micro_usd > 0
    ), moved AS (
      UPDATE users u SET balance_micro_usd = u.balance_micro_usd - t.total, updated_at = now()
      FROM (SELECT user_id, max(total) AS total FROM charges GROUP BY user_id) t
      WHERE u.id = t.user_id
      RETURNING u.id, u.balance_micro_usd + t.total AS before
    ), ledger AS (
      INSERT INTO ledger_entries (user_id, kind, amount_micro_usd, balance_after_micro_usd, request_id)
      SELECT c.user_id, 'charge', -c.amount, m.before - c.running, c.id
      FROM charges c JOIN moved m ON m.id = c.user_id
      ORDER BY c.user_id, c.running
    )
    -- What the batch's charges take off the undrained counters (replayed records included: their
    -- first write was never acknowledged, so the counters still hold them), and its records charged
    -- beyond their reservation.
    SELECT user_id::text, api_key_id::text, sum(charged_micro_usd)::bigint AS charged, count(*) FILTER (WHERE over_reservation)::int AS over
    FROM input WHERE charged_micro_usd > 0 OR over_reservation GROUP BY 1, 2`;

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
