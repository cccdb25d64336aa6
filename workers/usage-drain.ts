import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Db } from '../shared/db/index.js';
import type { Logger } from '../shared/log.js';
import { connectRedis, createPatientRedis, reportRedisErrors, type RedisTarget } from '../shared/redis/client.js';
import { defineScripts } from '../shared/lifecycle/redis-scripts.js';
import type { RedisKeys } from '../shared/redis/keys.js';
import { usageOverReservation, usageRecordsDrained } from './metrics.js';
import { drainUsageBatch, moveLegacyUsage, usageDrained } from '../shared/usage/drain.js';

const LEGACY_CHECK_MS = 5_000;

export interface UsageDrainer {
  /** Resolves once the queue is empty (usable by tests and by a graceful stop). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export interface UsageDrainOptions {
  db: Db;
  redis: RedisTarget;
  keys: RedisKeys;
  batch: number;
  log: Logger;
  /** How often an empty queue (or one another drainer is working on) is looked at again, ms. */
  idleMs?: number;
  /** After a small batch, how long to let records accumulate before the next read, ms. */
  lingerMs?: number;
}

/**
 * Drains the usage queue into Postgres in batches. Runs in every worker process; one at a time
 * holds the drain lock and takes a batch, and a batch whose drainer died is replayed by the next.
 */
export async function startUsageDrainer(options: UsageDrainOptions): Promise<UsageDrainer> {
  // Waits for Redis instead of failing fast: the drain has no caller to answer.
  const redis: Redis = createPatientRedis(options.redis);
  reportRedisErrors(redis, options.log, 'usage drain');
  defineScripts(redis);
  await connectRedis(redis);
  const token = `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const idleMs = options.idleMs ?? 100;
  const lingerMs = options.lingerMs ?? 50;
  let running = true;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const loop = (async () => {
    let legacyCheckedAt = 0;
    while (running) {
      try {
        // An earlier release's stream is looked for now and then (an upgrade may still be rolling).
        if (Date.now() - legacyCheckedAt > LEGACY_CHECK_MS) {
          legacyCheckedAt = Date.now();
          const moved = await moveLegacyUsage(redis, options.keys);
          if (moved > 0) options.log.info({ moved }, "usage records moved from the earlier release's stream");
        }
        const drained = await drainUsageBatch(options.db, redis, options.keys, token, options.batch, (n) =>
          usageOverReservation.inc(n),
        );
        usageRecordsDrained.inc(drained);
        // Under load, wait a moment for a fuller batch: one Postgres statement per many records is
        // what keeps the cost per call low.
        if (drained === 0) await pause(idleMs);
        else if (drained < options.batch / 2) await pause(lingerMs);
      } catch (err) {
        if (!running) break;
        options.log.error({ err }, 'usage drain failed; retrying');
        await pause(500);
      }
    }
  })();

  return {
    async idle() {
      while (running && !(await usageDrained(redis, options.keys))) await new Promise((r) => setTimeout(r, 20));
    },
    async stop() {
      running = false;
      wake?.();
      // A batch in flight is finished (or left whole on the queue) before the connection closes.
      await loop;
      redis.disconnect();
    },
  };
}
