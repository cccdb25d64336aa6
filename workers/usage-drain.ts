import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Db } from '../shared/db/index.js';
import type { Logger } from '../shared/log.js';
import { createRedis, connectRedis } from '../shared/redis/client.js';
import { defineScripts } from '../shared/redis/scripts.js';
import type { RedisKeys } from '../shared/redis/keys.js';
import { usageRecordsDrained } from './metrics.js';
import { DRAIN_GROUP, drainUsageBatch, ensureDrainGroup } from '../shared/usage/drain.js';

const CLAIM_EVERY_MS = 5_000;

export interface UsageDrainer {
  /** Resolves once the queue is empty (usable by tests and by a graceful stop). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export interface UsageDrainOptions {
  db: Db;
  redisUrl: string;
  keys: RedisKeys;
  batch: number;
  log: Logger;
  blockMs?: number;
  /** After a small batch, how long to let records accumulate before the next read. */
  lingerMs?: number;
}

/**
 * Drains the usage stream into Postgres in batches. Runs in every worker process: the consumer
 * group shares entries between them, and entries of a process that died are claimed by another.
 */
export async function startUsageDrainer(options: UsageDrainOptions): Promise<UsageDrainer> {
  // Blocking reads need their own connection; it waits for Redis instead of failing fast.
  const redis: Redis = createRedis(options.redisUrl, { maxRetriesPerRequest: null, enableOfflineQueue: true, commandTimeout: undefined });
  redis.on('error', () => {});
  defineScripts(redis);
  await connectRedis(redis);
  await ensureDrainGroup(redis, options.keys);
  const consumer = `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const blockMs = options.blockMs ?? 1_000;
  const lingerMs = options.lingerMs ?? 50;
  let running = true;

  const loop = (async () => {
    let lastClaim = 0;
    while (running) {
      try {
        // Entries a dead drainer took are looked for now and then, not on every read.
        const claim = Date.now() - lastClaim > CLAIM_EVERY_MS;
        if (claim) lastClaim = Date.now();
        const drained = await drainUsageBatch(options.db, redis, options.keys, consumer, options.batch, blockMs, claim);
        usageRecordsDrained.inc(drained);
        // Under load, wait a moment for a fuller batch: one Postgres statement per many records is
        // what keeps the cost per call low. An idle stream is still read at once (blocking read).
        if (drained > 0 && drained < options.batch / 2) await new Promise((r) => setTimeout(r, lingerMs));
      } catch (err) {
        if (!running) break;
        options.log.error({ err }, 'usage drain failed; retrying');
        if (String((err as Error).message).includes('NOGROUP')) await ensureDrainGroup(redis, options.keys).catch(() => {});
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();

  return {
    async idle() {
      // Asked on a connection of its own: the drain's connection sits in a blocking read.
      const probe = createRedis(options.redisUrl);
      probe.on('error', () => {});
      try {
        await connectRedis(probe);
        while (running && !(await streamDrained(probe, options.keys))) await new Promise((r) => setTimeout(r, 20));
      } finally {
        probe.disconnect();
      }
    },
    async stop() {
      running = false;
      // A blocked XREADGROUP returns within blockMs; the loop then finishes its last batch.
      await loop;
      redis.disconnect();
    },
  };
}

/** True when every queued record was read and acknowledged (the group has no lag and nothing pending). */
export async function streamDrained(redis: Redis, keys: RedisKeys): Promise<boolean> {
  const groups = (await redis.xinfo('GROUPS', keys.usageStream)) as (string | number | null)[][];
  for (const fields of groups) {
    const info = new Map<string, string | number | null>();
    for (let i = 0; i < fields.length; i += 2) info.set(String(fields[i]), fields[i + 1] ?? null);
    if (info.get('name') !== DRAIN_GROUP) continue;
    if (Number(info.get('pending')) !== 0) return false;
    const lag = info.get('lag');
    if (lag !== null && lag !== undefined) return Number(lag) === 0;
    // Redis reports no lag when deleted entries make it unknown: compare the ids instead.
    const stream = (await redis.xinfo('STREAM', keys.usageStream)) as (string | number)[];
    return stream[stream.indexOf('last-generated-id') + 1] === info.get('last-delivered-id');
  }
  return false;
}
