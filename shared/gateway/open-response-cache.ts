import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { defineScripts } from '../lifecycle/redis-scripts.js';
import type { Logger } from '../log.js';
import { connectRedis, createRedis } from '../redis/client.js';
import type { RedisKeys } from '../redis/keys.js';
import { ResponseCacheStore } from '../response-cache/store.js';

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
  const { redisUrl, maxBytes } = config.responseCache;
  if (!redisUrl) return { store: new ResponseCacheStore(redis, keys, maxBytes, clock, log), close: async () => {} };
  // A lookup waits little for a stalled cache: answering from the upstream is the fallback.
  const own = createRedis({ url: redisUrl }, { commandTimeout: 500 });
  own.on('error', () => {});
  defineScripts(own);
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
