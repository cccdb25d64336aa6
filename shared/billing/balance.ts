import type { Redis } from 'ioredis';
import type { Db } from '../db/index.js';
import { settledBalance } from '../db/users.js';
import type { RedisKeys } from '../redis/keys.js';

/**
 * The spendable balance lives in Redis so admission costs one round trip; Postgres (the ledger)
 * stays the truth and Redis is loaded from it on first use.
 */
export class BalanceStore {
  constructor(
    private readonly redis: Redis,
    private readonly db: Db,
    private readonly keys: RedisKeys,
  ) {}

  /** After a credit was committed in Postgres. */
  async credited(userId: string, amount: number): Promise<void> {
    await this.redis.gwCredit(this.keys.balance(userId), this.keys.epoch(userId), amount);
  }

  /** The exact balance now: settled in Postgres minus charges still queued for it. */
  async currentBalance(userId: string): Promise<{ settled: number; pending: number; balance: number } | undefined> {
    const pending = Number((await this.redis.get(this.keys.undrained(userId))) ?? 0);
    const settled = await settledBalance(this.db, userId);
    if (settled === undefined) return undefined;
    return { settled, pending, balance: settled - pending };
  }

  /**
   * Order matters: `undrained` is read before Postgres, so a batch applied in between is counted
   * twice (too little spendable for a moment) rather than not at all (overspending).
   */
  async load(userId: string): Promise<void> {
    for (;;) {
      const [epoch, undrained] = await this.redis.mget(this.keys.epoch(userId), this.keys.undrained(userId));
      const settled = await settledBalance(this.db, userId);
      if (settled === undefined) throw new Error(`unknown account ${userId}`);
      const value = settled - Number(undrained ?? 0);
      const result = Number(
        await this.redis.gwLoadBalance(this.keys.balance(userId), this.keys.epoch(userId), epoch ?? '0', value),
      );
      if (result !== -1) return;
    }
  }
}
