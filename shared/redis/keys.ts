import type { SpendPeriods } from '../clock.js';

/**
 * Redis key names in one place. Per-account and per-key names share hash tags; the scripts also
 * touch keys of several accounts and groups, so the gateway runs against a single Redis (with AOF
 * and `noeviction`), not a cluster.
 */
export function redisKeys(prefix: string) {
  const acct = (userId: string) => `${prefix}acct:{${userId}}`;
  const keySpend = (keyId: string) => `${prefix}key:{${keyId}}`;
  return {
    balance: (userId: string) => `${acct(userId)}:bal`,
    /** Call id → `<expiry ms>:<amount>:<quota reserved key>` of each reservation held. */
    reservations: (userId: string) => `${acct(userId)}:resv`,
    undrained: (userId: string) => `${acct(userId)}:undrained`,
    epoch: (userId: string) => `${acct(userId)}:epoch`,
    /** The prefix the STEP script derives a key's spend counters from (see keySpendNames). */
    keySpend,
    keyQuota: (keyId: string, periods: SpendPeriods) => keySpendNames(keySpend(keyId), periods),
    keyUndrained: (keyId: string) => `${keySpend(keyId)}:undrained`,
    /** GCRA state of one layer (key, user or group): `<requests TAT> <tokens TAT>`, ms. */
    rate: (layer: string, id: string) => `${prefix}rl:${layer}:{${id}}`,
    concurrency: (layer: string, id: string) => `${prefix}cc:${layer}:{${id}}`,
    /** Generic limits (per IP, per key lookups, code cooldowns). */
    policy: (name: string, id: string) => `${prefix}lim:${name}:{${id}}`,
    /** Marks a call finished (with its charge), for finishes that must happen once. */
    finished: (callId: string) => `${prefix}done:{${callId}}`,
    /** Held while a creating call with this Idempotency-Key is being accepted. */
    idempotencyInProgress: (digest: string) => `${prefix}idem:${digest}`,
    /** Usage records waiting for Postgres (a list), the lock of the drainer at work, records Postgres refused. */
    usageQueue: `${prefix}usage:queue`,
    usageLock: `${prefix}usage:lock`,
    usageDead: `${prefix}usage:dead`,
    /** Where releases before the usage queue kept records (a stream): moved onto the queue by the drain. */
    legacyUsageStream: `${prefix}usage`,
    keyInvalidation: `${prefix}keys:invalidate`,
    /** Short-lived single-use console state: passkey ceremonies, OpenID Connect states, two-step tickets. */
    consoleTicket: (kind: string, id: string) => `${prefix}console:${kind}:${id}`,
    /** Private-protocol calls that ended (their ids), for the API processes waiting on them. */
    callEnded: `${prefix}pcall:ended`,
    /** The response cache (shared/response-cache/store.ts): one answer, by account and request digest. */
    cacheEntry: (userId: string, digest: string) => `${prefix}rc:{${userId}}:${digest}`,
    /** An account's entries (a sorted set by expiry), for the purge. */
    cacheAccount: (userId: string) => `${prefix}rc:{${userId}}:idx`,
    /** The entries a key stored (a sorted set by expiry), purged when the key is revoked. */
    cacheKey: (keyId: string) => `${prefix}rc:key:{${keyId}}`,
    /** The cache's byte count, each entry's size (a hash) and expiry (a sorted set): its own memory bound. */
    cacheBytes: `${prefix}rc:bytes`,
    cacheSizes: `${prefix}rc:sizes`,
    cacheExpiries: `${prefix}rc:exp`,
  };
}

/** A key's spend counters; the STEP script builds the same names from the prefix. */
export function keySpendNames(keyPrefix: string, periods: SpendPeriods) {
  return {
    /** Loaded from Postgres with the period counters: while it is missing, no counter of the key is trusted. */
    t: `${keyPrefix}:spent:total`,
    d: `${keyPrefix}:spent:d:${periods.day}`,
    w: `${keyPrefix}:spent:w:${periods.week}`,
    m: `${keyPrefix}:spent:m:${periods.month}`,
    /**
     * The total as releases before weekly counters named it. A key loaded then has no week counter,
     * so the total was renamed to make it load again; the load deletes the old one.
     */
    legacyTotal: `${keyPrefix}:spent`,
    r: `${keyPrefix}:reserved`,
    und: `${keyPrefix}:undrained`,
    epoch: `${keyPrefix}:epoch`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;
export type KeyQuotaKeys = ReturnType<typeof keySpendNames>;
