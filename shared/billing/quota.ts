import type { Redis } from 'ioredis';
import { startOfUtcDay, startOfUtcIsoWeek, startOfUtcMonth, utcPeriods } from '../clock.js';
import type { Db } from '../db/index.js';
import { keySpend } from '../db/usage-records.js';
import type { RedisKeys } from '../redis/keys.js';

export interface KeySpend {
  total: number;
  daily: number;
  /** This ISO week (from Monday 00:00 UTC). */
  weekly: number;
  monthly: number;
}

/**
 * What a key has spent (total, this UTC day, ISO week and month), kept in Redis beside the balance
 * and rebuilt from usage records when Redis has none.
 */
export class QuotaStore {
  constructor(
    private readonly redis: Redis,
    private readonly db: Db,
    private readonly keys: RedisKeys,
  ) {}

  /** Charges still queued for Postgres are counted in every period: a moment of caution, never an overspend. */
  async load(keyId: string, now: number): Promise<void> {
    const q = this.keys.keyQuota(keyId, utcPeriods(now));
    const since = { day: startOfUtcDay(now), week: startOfUtcIsoWeek(now), month: startOfUtcMonth(now) };
    for (;;) {
      const [epoch, undrained] = await this.redis.mget(q.epoch, q.und);
      const pending = Number(undrained ?? 0);
      const spent = await keySpend(this.db, keyId, since);
      const result = Number(
        await this.redis.gwLoadQuota(
          q.t,
          q.d,
          q.m,
          q.w,
          q.legacyTotal,
          q.epoch,
          epoch ?? '0',
          spent.total + pending,
          spent.daily + pending,
          spent.monthly + pending,
          spent.weekly + pending,
        ),
      );
      if (result !== -1) return;
    }
  }

  async spend(keyId: string, now: number): Promise<KeySpend> {
    const q = this.keys.keyQuota(keyId, utcPeriods(now));
    let [t, d, w, m] = await this.redis.mget(q.t, q.d, q.w, q.m);
    if (t === null) {
      await this.load(keyId, now);
      [t, d, w, m] = await this.redis.mget(q.t, q.d, q.w, q.m);
    }
    return { total: Number(t ?? 0), daily: Number(d ?? 0), weekly: Number(w ?? 0), monthly: Number(m ?? 0) };
  }
}
