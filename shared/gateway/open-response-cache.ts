import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { defineScripts } from '../lifecycle/redis-scripts.js';
import type { Logger } from '../log.js';
import { connectRedis, createRedis, type RedisTarget } from '../redis/client.js';
import type { RedisKeys } from '../redis/keys.js';
import { ResponseCacheStore } from '../response-cache/store.js';

/** A lookup waits little for a stalled cache Redis: answering from the upstream is the fallback. */
const CACHE_COMMAND_TIMEOUT_MS = 500;

/**
 * The response cache's own Redis (CACHE_REDIS_URL), for the processes and the CLI alike: made by the
 * one connection factory with a shorter command timeout, its scripts defined. Its connection errors
 * are not logged here: the store says once that the cache fails, and once that it answers again.
 */
export function createCacheRedis(target: RedisTarget): Redis {
  const redis = createRedis(target, { commandTimeout: CACHE_COMMAND_TIMEOUT_MS });
  redis.on('error', () => {});
  defineScripts(redis);
  return redis;
}

/**
 * The response cache's storage on the gateway's Redis, or on its own (CACHE_REDIS_URL) with its own
 * memory. Its own connection never holds a start: an unreachable cache Redis only makes every call
 * a miss until it answers.
 */
export async function openResponseCache(
  config: Config,
  redis: Redis,
  keys: RedisKeys,
  clock: Clock,
  log: Logger,
): Promise<{ store: ResponseCacheStore; close(): Promise<void> }> {
  const { redis: target, maxBytes } = config.responseCache;
  if (!target) return { store: new ResponseCacheStore(redis, keys, maxBytes, clock, log), close: async () => {} };
  const own = createCacheRedis(target);
  await connectRedis(own).catch((err: Error) =>
    log.warn({ err: err.message }, 'the response cache Redis is unreachable'),
  );
  return {
    store: new ResponseCacheStore(own, keys, maxBytes, clock, log),
    close: async () => {
      await own.quit().catch(() => own.disconnect());
    },
  };
}
