import type { Redis } from 'ioredis';
import type { Db } from '../db/index.js';
import { findKeyByHash, findKeyWithOwnerById } from '../db/api-keys.js';
import { toKeyContext, type ApiKeyContext } from './api-key.js';
import { hashSecret } from './secret.js';

const MAX_ENTRIES = 100_000;
const NEGATIVE_TTL_MS = 5_000;

interface Entry {
  key: ApiKeyContext | null;
  expiresAt: number;
}

/**
 * Keys are checked in memory. A change of a key is published on Redis and every process drops its
 * copy at once; the TTL only bounds staleness if a message is lost (the cache is also cleared
 * whenever the subscription reconnects, since messages may have been missed meanwhile).
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<ApiKeyContext | null>>();
  /** Keys by id, for jobs that run a call for a key they were accepted with (no secret at hand). */
  private readonly byId = new Map<string, Entry>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
  ) {}

  /** The cached answer for this secret (null: no such key), or undefined when it must be loaded. */
  cached(secret: string, now: number): ApiKeyContext | null | undefined {
    const hit = this.entries.get(secret);
    return hit && hit.expiresAt > now ? hit.key : undefined;
  }

  /** A key by its id (cached like `lookup`, dropped by the same invalidations), or null. */
  async lookupById(keyId: string): Promise<ApiKeyContext | null> {
    const hit = this.byId.get(keyId);
    if (hit && hit.expiresAt > Date.now()) return hit.key;
    const row = await findKeyWithOwnerById(this.db, keyId);
    const key = row ? toKeyContext(row) : null;
    if (this.byId.size >= MAX_ENTRIES) this.byId.clear();
    this.byId.set(keyId, { key, expiresAt: Date.now() + (key ? this.ttlMs : NEGATIVE_TTL_MS) });
    return key;
  }

  /** The key's context, or null when no such key exists. */
  async lookup(secret: string): Promise<ApiKeyContext | null> {
    const hit = this.cached(secret, Date.now());
    if (hit !== undefined) return hit;
    // Concurrent first calls with one key share one query.
    let loading = this.pending.get(secret);
    if (!loading) {
      loading = this.load(secret).finally(() => this.pending.delete(secret));
      this.pending.set(secret, loading);
    }
    return loading;
  }

  /** A message is a key id, or `user:<id>` when an account's limits or discount changed. */
  invalidate(message: string): void {
    const userId = message.startsWith('user:') ? message.slice(5) : undefined;
    for (const [secret, entry] of this.entries) {
      if (userId ? entry.key?.userId === userId : entry.key?.id === message) this.entries.delete(secret);
    }
    for (const [id, entry] of this.byId) {
      if (userId ? entry.key?.userId === userId : id === message) this.byId.delete(id);
    }
  }

  clear(): void {
    this.entries.clear();
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

  private async load(secret: string): Promise<ApiKeyContext | null> {
    const row = await findKeyByHash(this.db, hashSecret(secret));
    const key = row ? toKeyContext(row) : null;
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(secret, { key, expiresAt: Date.now() + (key ? this.ttlMs : NEGATIVE_TTL_MS) });
    return key;
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
