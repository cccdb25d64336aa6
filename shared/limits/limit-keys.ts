import { utcPeriods } from '../clock.js';
import type { KeyQuotaKeys, RedisKeys } from '../redis/keys.js';

/** The Redis names of an account's money state (see shared/limits/scripts.ts). */
export interface AccountKeys {
  bal: string;
  resv: string;
  und: string;
  epoch: string;
}

const NAME_CACHE_SIZE = 100_000;

/**
 * The Redis key names the STEP operations carry, built once per account and per key and quota day
 * (the day names its week and month), not on every call.
 */
export class LimitKeyNames {
  private readonly accounts = new Map<string, AccountKeys>();
  private readonly quotas = new Map<string, { day: string; names: KeyQuotaKeys }>();
  private readonly keyPrefixes = new Map<string, string>();

  constructor(readonly keys: RedisKeys) {}

  account(userId: string): AccountKeys {
    let names = this.accounts.get(userId);
    if (!names) {
      if (this.accounts.size >= NAME_CACHE_SIZE) this.accounts.clear();
      const k = this.keys;
      names = {
        bal: k.balance(userId),
        resv: k.reservations(userId),
        und: k.undrained(userId),
        epoch: k.epoch(userId),
      };
      this.accounts.set(userId, names);
    }
    return names;
  }

  /** The prefix of a key's spend counters ('' = no key). */
  keySpendPrefix(keyId: string): string {
    if (!keyId) return '';
    let prefix = this.keyPrefixes.get(keyId);
    if (prefix === undefined) {
      if (this.keyPrefixes.size >= NAME_CACHE_SIZE) this.keyPrefixes.clear();
      prefix = this.keys.keySpend(keyId);
      this.keyPrefixes.set(keyId, prefix);
    }
    return prefix;
  }

  quota(keyId: string, now: number): KeyQuotaKeys {
    const periods = utcPeriods(now);
    const cached = this.quotas.get(keyId);
    if (cached && cached.day === periods.day) return cached.names;
    if (this.quotas.size >= NAME_CACHE_SIZE) this.quotas.clear();
    const names = this.keys.keyQuota(keyId, periods);
    this.quotas.set(keyId, { day: periods.day, names });
    return names;
  }
}
