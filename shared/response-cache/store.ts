import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { RedisKeys } from '../redis/keys.js';
import { countCacheStore } from './metrics.js';

/** The largest entry the cache keeps: a larger answer is not cached. */
export const MAX_ENTRY_BYTES = 1024 * 1024;

/**
 * What an entry costs Redis, as the byte budget counts it: its value, its name five times (the
 * entry's key, its member in the account's, the key's and the expiry index, its field in the size
 * hash) and Redis's bookkeeping of those six objects (480 bytes: the growth of `used_memory`
 * measured per entry less the bytes above: docs/reference/cache.md, "Storage").
 */
export function entryCost(valueBytes: number, nameBytes: number): number {
  return valueBytes + 5 * nameBytes + 480;
}
const PURGE_BATCH = 500;

/**
 * The response cache's storage: entries in Redis under a per-account prefix with their TTL, each
 * at most MAX_ENTRY_BYTES, all together within `maxBytes` (beyond it nothing more is stored until
 * entries expire or are purged). A failing Redis makes a lookup a miss and a write a no-op, logged
 * once until Redis answers again: the cache never fails a call.
 */
export class ResponseCacheStore {
  private failing = false;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly maxBytes: number,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** The entry's bytes, or undefined (absent, or Redis failed). */
  async get(userId: string, digest: string): Promise<Buffer | undefined> {
    try {
      const value = await this.redis.getBuffer(this.keys.cacheEntry(userId, digest));
      this.recovered();
      return value ?? undefined;
    } catch (err) {
      this.failed(err, 'lookup');
      return undefined;
    }
  }

  /** Stores an entry for `ttlSeconds`; false when it is too large, over the budget, or Redis failed. */
  async put(userId: string, keyId: string, digest: string, value: Buffer, ttlSeconds: number): Promise<boolean> {
    const entry = this.keys.cacheEntry(userId, digest);
    const size = entryCost(value.length, entry.length);
    if (ttlSeconds <= 0) return false;
    if (value.length > MAX_ENTRY_BYTES) {
      countCacheStore('too_large');
      return false;
    }
    try {
      const stored = await this.redis.gwCacheStore(
        entry,
        this.keys.cacheAccount(userId),
        this.keys.cacheKey(keyId),
        this.keys.cacheBytes,
        this.keys.cacheSizes,
        this.keys.cacheExpiries,
        value,
        ttlSeconds * 1000,
        size,
        this.maxBytes,
        this.clock.now(),
      );
      this.recovered();
      countCacheStore(stored === 1 ? 'stored' : 'over_budget');
      return stored === 1;
    } catch (err) {
      this.failed(err, 'write');
      countCacheStore('failed');
      return false;
    }
  }

  /** Removes every entry of an account (the console's purge); resolves with how many. */
  purgeAccount(userId: string): Promise<number> {
    return this.purge(this.keys.cacheAccount(userId));
  }

  /** Removes every entry a key stored (when it is revoked); resolves with how many. */
  purgeKey(keyId: string): Promise<number> {
    return this.purge(this.keys.cacheKey(keyId));
  }

  /** The bytes the cache counts now (entries Redis expired are given back as entries are stored). */
  async usedBytes(): Promise<number> {
    return Number((await this.redis.get(this.keys.cacheBytes)) ?? 0);
  }

  private async purge(index: string): Promise<number> {
    const k = this.keys;
    let total = 0;
    for (;;) {
      const n = Number(await this.redis.gwCachePurge(index, k.cacheBytes, k.cacheSizes, k.cacheExpiries, PURGE_BATCH));
      total += n;
      if (n < PURGE_BATCH) return total;
    }
  }

  private failed(err: unknown, what: string): void {
    if (this.failing) return;
    this.failing = true;
    this.log.warn(
      { err: (err as Error).message },
      `response cache ${what} failed: calls are answered as misses until Redis answers again`,
    );
  }

  private recovered(): void {
    if (this.failing) {
      this.failing = false;
      this.log.info('response cache: Redis answers again');
    }
  }
}
