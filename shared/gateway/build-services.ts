import { BalanceStore, defineBillingScripts } from '../billing/balance.js';
import type { Catalog } from '../catalog/index.js';
import type { Config } from '../config.js';
import { createDb } from '../db/index.js';
import { KeyCache } from '../keys/key-cache.js';
import type { Logger } from '../log.js';
import { UpstreamRegistry } from '../providers/registry.js';
import { connectRedis, createRedis } from '../redis/client.js';
import { redisKeys } from '../redis/keys.js';
import type { GatewayServices } from './services.js';

export interface RunningServices extends GatewayServices {
  close(): Promise<void>;
}

/** Connects everything a gateway process needs, once. */
export async function buildServices(config: Config, catalog: Catalog, log: Logger): Promise<RunningServices> {
  const db = createDb(config.db.url, config.db.poolSize);
  const redis = createRedis(config.redis.url);
  const subscriber = createRedis(config.redis.url, { maxRetriesPerRequest: null });
  for (const r of [redis, subscriber]) r.on('error', (err) => log.warn({ err: err.message }, 'redis connection problem'));
  defineBillingScripts(redis);
  await Promise.all([connectRedis(redis), connectRedis(subscriber)]);
  const keys = redisKeys(config.redis.prefix);
  const keyCache = new KeyCache(db, config.keys.cacheTtlMs);
  await keyCache.subscribe(subscriber, keys.keyInvalidation);
  const upstreams = new UpstreamRegistry(catalog, config.upstream);
  return {
    config,
    log,
    db,
    redis,
    redisKeys: keys,
    catalog,
    upstreams,
    keyCache,
    balances: new BalanceStore(redis, db, keys),
    async close() {
      await upstreams.close();
      subscriber.disconnect();
      await redis.quit().catch(() => redis.disconnect());
      await db.destroy();
    },
  };
}
