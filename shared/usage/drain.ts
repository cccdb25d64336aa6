import { sql } from 'kysely';
import type { Redis } from 'ioredis';
import type { Db } from '../db/index.js';
import type { RedisKeys } from '../redis/keys.js';
import type { UsageEvent } from './record.js';

export const DRAIN_GROUP = 'usage-drain';
/** Entries a dead consumer took but never acknowledged are claimed by another after this long. */
const CLAIM_IDLE_MS = 30_000;

interface StreamEntry {
  entryId: string;
  /** The usage record as queued, with its charge added: a JSON object, passed to Postgres as it is. */
  row: string;
  charged: number;
  /** The account's and the key's undrained counters (see the STEP script's finish). */
  userUndrained: string;
  keyUndrained: string;
}

export async function ensureDrainGroup(redis: Redis, keys: RedisKeys): Promise<void> {
  try {
    await redis.xgroup('CREATE', keys.usageStream, DRAIN_GROUP, '0', 'MKSTREAM');
  } catch (err) {
    if (!String((err as Error).message).includes('BUSYGROUP')) throw err;
  }
}

/**
 * Moves one batch of usage records from the Redis stream into Postgres: records, balances and
 * ledger entries in one statement, idempotent by usage id (a redelivered entry inserts nothing and
 * moves no money). Only after the commit are the entries acknowledged. Returns the entries handled.
 */
export async function drainUsageBatch(
  db: Db,
  redis: Redis,
  keys: RedisKeys,
  consumer: string,
  batch: number,
  blockMs: number,
  claimStaleEntries = true,
): Promise<number> {
  const claimed = claimStaleEntries ? await claimStale(redis, keys, consumer, batch) : [];
  const entries = claimed.length > 0 ? claimed : await readNew(redis, keys, consumer, batch, blockMs);
  if (entries.length === 0) return 0;
  await writeBatch(db, entries);
  const quads: (string | number)[] = [];
  for (const e of entries) quads.push(e.entryId, e.userUndrained, e.keyUndrained, e.charged);
  // Acknowledges and deletes the entries, and lowers the undrained counters, in one step.
  await redis.gwAckDrained(keys.usageStream, DRAIN_GROUP, ...quads);
  return entries.length;
}

async function readNew(redis: Redis, keys: RedisKeys, consumer: string, batch: number, blockMs: number): Promise<StreamEntry[]> {
  const reply = (await redis.xreadgroup('GROUP', DRAIN_GROUP, consumer, 'COUNT', batch, 'BLOCK', blockMs, 'STREAMS', keys.usageStream, '>')) as
    | [string, [string, string[]][]][]
    | null;
  return parseEntries(keys, reply?.[0]?.[1] ?? []);
}

async function claimStale(redis: Redis, keys: RedisKeys, consumer: string, batch: number): Promise<StreamEntry[]> {
  const reply = (await redis.xautoclaim(keys.usageStream, DRAIN_GROUP, consumer, CLAIM_IDLE_MS, '0-0', 'COUNT', batch)) as [string, [string, string[]][]];
  return parseEntries(keys, reply[1] ?? []);
}

function parseEntries(keys: RedisKeys, raw: [string, string[]][]): StreamEntry[] {
  const entries: StreamEntry[] = [];
  for (const [entryId, fields] of raw) {
    if (!fields) continue; // deleted meanwhile
    const record = fieldValue(fields, 'r');
    if (record === undefined) continue;
    const charged = Number(fieldValue(fields, 'c') ?? 0);
    const userUndrained = fieldValue(fields, 'u');
    const keyUndrained = fieldValue(fields, 'k');
    if (userUndrained !== undefined && keyUndrained !== undefined && record.endsWith('}')) {
      // The record is JSON made by the API: the charge is appended without parsing it.
      entries.push({ entryId, row: `${record.slice(0, -1)},"charged_micro_usd":${charged}}`, charged, userUndrained, keyUndrained });
      continue;
    }
    // An entry queued by an older release names no counters: they are derived from the record.
    const event = JSON.parse(record) as UsageEvent;
    entries.push({
      entryId,
      row: JSON.stringify({ ...event, charged_micro_usd: charged }),
      charged,
      userUndrained: keys.undrained(event.user_id),
      keyUndrained: event.api_key_id ? keys.keyUndrained(event.api_key_id) : '',
    });
  }
  return entries;
}

function fieldValue(fields: string[], name: string): string | undefined {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

async function writeBatch(db: Db, entries: StreamEntry[]): Promise<void> {
  const rows = `[${entries.map((e) => e.row).join(',')}]`;
  // Window sums give each charge its balance_after within one account, in the order of the calls.
  await sql`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${rows}::jsonb) AS r(
        id text, request_id text, user_id uuid, api_key_id uuid, model text, provider text, endpoint text,
        status_code int, error_code text, stream boolean, input_tokens int, output_tokens int, cached_tokens int,
        usage_estimated boolean, charged_micro_usd bigint, tags text[], latency_ms int, ttft_ms int, created_at timestamptz)
    ), inserted AS (
      INSERT INTO usage_records (id, request_id, user_id, api_key_id, model, provider, endpoint, status_code, error_code, stream,
        input_tokens, output_tokens, cached_tokens, usage_estimated, charged_micro_usd, tags, latency_ms, ttft_ms, created_at)
      SELECT id, request_id, user_id, api_key_id, model, provider, endpoint, status_code, error_code, stream,
        input_tokens, output_tokens, cached_tokens, usage_estimated, charged_micro_usd, coalesce(tags, '{}'), latency_ms, ttft_ms, created_at
      FROM input
      ON CONFLICT (id) DO NOTHING
      RETURNING id, user_id, charged_micro_usd, created_at
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
