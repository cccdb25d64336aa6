import type { Redis } from 'ioredis';
import { BalanceStore } from '../billing/balance.js';
import { defineScripts } from '../lifecycle/redis-scripts.js';
import { loadCatalogFile, type Catalog } from '../catalog/index.js';
import type { Config } from '../config.js';
import { createDb, type Db } from '../db/index.js';
import { bullPrefix, JobQueues } from '../jobs/queues.js';
import { findUserByEmail } from '../db/users.js';
import type { User } from '../db/schema.js';
import { GatewayError } from '../errors.js';
import type { KeyAdmin } from '../keys/manage-keys.js';
import { connectRedis, createRedis } from '../redis/client.js';
import { redisKeys } from '../redis/keys.js';
import { systemClock } from '../clock.js';
import { createLogger } from '../log.js';
import { ResponseCacheStore } from '../response-cache/store.js';
import { createCacheRedis } from '../gateway/open-response-cache.js';

/** Connections for one CLI command, opened lazily and closed at the end. */
export class CliContext {
  private dbInstance: Db | undefined;
  private redisInstance: Redis | undefined;
  private jobsInstance: JobQueues | undefined;
  private cacheRedis: Redis | undefined;

  constructor(readonly config: Config) {}

  get db(): Db {
    this.dbInstance ??= createDb(this.config.db.url, 2);
    return this.dbInstance;
  }

  async redis(): Promise<Redis> {
    if (!this.redisInstance) {
      const redis = createRedis(this.config.redis);
      this.redisInstance = redis;
      let lastError = 'no answer';
      redis.on('error', (err: Error) => {
        lastError = err.message;
      });
      defineScripts(redis);
      // A command has someone waiting: it gives up rather than wait for a master like the servers do.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        connectRedis(redis),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`Redis did not answer within 10 s: ${lastError}`)), 10_000);
        }),
      ]).finally(() => clearTimeout(timer));
    }
    return this.redisInstance;
  }

  /** Producers for the job queues (the operator's commands mail owners through the `mail` job). */
  async jobs(): Promise<JobQueues> {
    this.jobsInstance ??= new JobQueues(await this.redis(), bullPrefix(this.config.redis.prefix));
    return this.jobsInstance;
  }

  get keys() {
    return redisKeys(this.config.redis.prefix);
  }

  async balances(): Promise<BalanceStore> {
    return new BalanceStore(await this.redis(), this.db, this.keys);
  }

  /** The catalog named by CATALOG_FILE, or undefined without one (names are then not checked). */
  async catalog(): Promise<Catalog | undefined> {
    return this.config.catalog.file ? loadCatalogFile(this.config.catalog.file) : undefined;
  }

  async keyAdmin(): Promise<KeyAdmin> {
    return {
      db: this.db,
      redis: await this.redis(),
      channel: this.keys.keyInvalidation,
      catalog: await this.catalog(),
      cache: await this.responseCache(),
    };
  }

  /** The response cache (a revoked key's answers are purged), on its own Redis when CACHE_REDIS_URL sets one. */
  async responseCache(): Promise<ResponseCacheStore> {
    const { redis: target, maxBytes } = this.config.responseCache;
    let redis = await this.redis();
    if (target) {
      this.cacheRedis ??= createCacheRedis(target);
      await connectRedis(this.cacheRedis);
      redis = this.cacheRedis;
    }
    return new ResponseCacheStore(redis, this.keys, maxBytes, systemClock, createLogger('silent'));
  }

  async user(email: string): Promise<User> {
    const user = await findUserByEmail(this.db, email);
    if (!user) throw new GatewayError('not_found', 404, `no user with e-mail ${email}`);
    return user;
  }

  async close(): Promise<void> {
    await this.jobsInstance?.close();
    this.redisInstance?.disconnect();
    this.cacheRedis?.disconnect();
    await this.dbInstance?.destroy();
  }
}
