import type { Redis } from 'ioredis';
import { RefreshingCache } from '../cache/refreshing-cache.js';
import type { Db } from '../db/index.js';
import { findKeyByHash, findKeyWithOwnerById } from '../db/api-keys.js';
import { toKeyContext, type ApiKeyContext } from './api-key.js';
import { hashSecret } from './secret.js';

const MAX_ENTRIES = 100_000;
const NEGATIVE_TTL_MS = 5_000;

/**
 * Keys are checked in memory. A change of a key is published on Redis and every process drops its
 * copy at once; the TTL only bounds staleness if a message is lost (the cache is also cleared
 * whenever the subscription reconnects, since messages may have been missed meanwhile). Concurrent
 * first calls with one key share one query; a key past its TTL is served while one refresh runs,
 * and while Postgres is away (shared/cache/refreshing-cache.ts).
 */
export class KeyCache {
  private readonly bySecret: RefreshingCache<string, ApiKeyContext | null>;
  /** Keys by id, for jobs that run a call for a key they were accepted with (no secret at hand). */
  private readonly byId: RefreshingCache<string, ApiKeyContext | null>;

  constructor(db: Db, ttlMs: number) {
    const options = {
      // An unknown key is asked again sooner, and never served past that: it may just have been created.
      freshMs: (key: ApiKeyContext | null) => (key ? ttlMs : NEGATIVE_TTL_MS),
      staleMs: (key: ApiKeyContext | null) => (key ? ttlMs : 0),
      maxEntries: MAX_ENTRIES,
      now: Date.now,
    };
    this.bySecret = RefreshingCache.of(async (secret: string) => {
      const row = await findKeyByHash(db, hashSecret(secret));
      return row ? toKeyContext(row) : null;
    }, options);
    this.byId = RefreshingCache.of(async (keyId: string) => {
      const row = await findKeyWithOwnerById(db, keyId);
      return row ? toKeyContext(row) : null;
    }, options);
  }

  /** The cached answer for this secret (null: no such key), or undefined when it must be loaded. */
  cached(secret: string, now: number): ApiKeyContext | null | undefined {
    return this.bySecret.peek(secret, now);
  }

  /** A key by its id (cached like `lookup`, dropped by the same invalidations), or null. */
  lookupById(keyId: string): Promise<ApiKeyContext | null> {
    return this.byId.get(keyId);
  }

  /** The key's context, or null when no such key exists. */
  lookup(secret: string): Promise<ApiKeyContext | null> {
    return this.bySecret.get(secret);
  }

  /** A message is a key id, or `user:<id>` when an account's limits or discount changed. */
  invalidate(message: string): void {
    const userId = message.startsWith('user:') ? message.slice(5) : undefined;
    if (userId) {
      const ofAccount = (key: ApiKeyContext | null) => key?.userId === userId;
      this.bySecret.deleteWhere(ofAccount);
      this.byId.deleteWhere(ofAccount);
    } else {
      this.bySecret.deleteWhere((key) => key?.id === message);
      this.byId.delete(message);
    }
  }

  clear(): void {
    this.bySecret.clear();
    this.byId.clear();
  }

  /** Listens for invalidations on a dedicated connection (a subscribed connection can do nothing else). */
  async subscribe(subscriber: Redis, channel: string): Promise<void> {
    subscriber.on('message', (ch: string, keyId: string) => {
      if (ch === channel) this.invalidate(keyId);
    });
    subscriber.on('ready', () => this.clear());
    await subscriber.subscribe(channel);
  }
}

/** Tells every gateway process that a key changed. */
export async function publishKeyChange(redis: Redis, channel: string, keyId: string): Promise<void> {
  await redis.publish(channel, keyId);
}

/** Tells every gateway process that an account's limits or discount changed (all its keys reload). */
export async function publishOwnerChange(redis: Redis, channel: string, userId: string): Promise<void> {
  await redis.publish(channel, `user:${userId}`);
}
