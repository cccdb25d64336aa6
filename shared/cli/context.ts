import type { Redis } from 'ioredis';
import { BalanceStore } from '../billing/balance.js';
import { defineScripts } from '../redis/scripts.js';
import { loadCatalogFile, type Catalog } from '../catalog/index.js';
import type { Config } from '../config.js';
import { createDb, type Db } from '../db/index.js';
import { findUserByEmail } from '../db/users.js';
import type { User } from '../db/schema.js';
import { GatewayError } from '../errors.js';
import type { KeyAdmin } from '../keys/manage-keys.js';
import { connectRedis, createRedis } from '../redis/client.js';
import { redisKeys } from '../redis/keys.js';

/** Connections for one CLI command, opened lazily and closed at the end. */
export class CliContext {
  private dbInstance: Db | undefined;
  private redisInstance: Redis | undefined;

  constructor(readonly config: Config) {}

  get db(): Db {
    this.dbInstance ??= createDb(this.config.db.url, 2);
    return this.dbInstance;
  }

  async redis(): Promise<Redis> {
    if (!this.redisInstance) {
      this.redisInstance = createRedis(this.config.redis.url);
      this.redisInstance.on('error', () => {});
      defineScripts(this.redisInstance);
      await connectRedis(this.redisInstance);
    }
    return this.redisInstance;
  }

  get keys() {
    return redisKeys(this.config.redis.prefix);
  }

  async balances(): Promise<BalanceStore> {
    return new BalanceStore(await this.redis(), this.db, this.keys);
  }

  async keyAdmin(): Promise<KeyAdmin> {
    const catalog: Catalog | undefined = this.config.catalog.file ? await loadCatalogFile(this.config.catalog.file) : undefined;
    return { db: this.db, redis: await this.redis(), channel: this.keys.keyInvalidation, catalog };
  }

  async user(email: string): Promise<User> {
    const user = await findUserByEmail(this.db, email);
    if (!user) throw new GatewayError('not_found', 404, `no user with e-mail ${email}`);
    return user;
  }

  async close(): Promise<void> {
    this.redisInstance?.disconnect();
    await this.dbInstance?.destroy();
  }
}
