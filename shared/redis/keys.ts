/**
 * Redis key names in one place. Per-account and per-key names share hash tags; the scripts also
 * touch keys of several accounts and groups, so the gateway runs against a single Redis (with AOF
 * and `noeviction`), not a cluster.
 */
export function redisKeys(prefix: string) {
  const acct = (userId: string) => `${prefix}acct:{${userId}}`;
  const key = (keyId: string) => `${prefix}key:{${keyId}}`;
  return {
    balance: (userId: string) => `${acct(userId)}:bal`,
    reservations: (userId: string) => `${acct(userId)}:resv`,
    reservationAmounts: (userId: string) => `${acct(userId)}:resvamt`,
    reservationQuotas: (userId: string) => `${acct(userId)}:resvq`,
    undrained: (userId: string) => `${acct(userId)}:undrained`,
    epoch: (userId: string) => `${acct(userId)}:epoch`,
    keyQuota: (keyId: string, day: string, month: string) => ({
      t: `${key(keyId)}:spent`,
      d: `${key(keyId)}:spent:d:${day}`,
      m: `${key(keyId)}:spent:m:${month}`,
      r: `${key(keyId)}:reserved`,
      und: `${key(keyId)}:undrained`,
      epoch: `${key(keyId)}:epoch`,
    }),
    keyUndrained: (keyId: string) => `${key(keyId)}:undrained`,
    /** GCRA state of one layer and dimension: layer is key, user or group. */
    rate: (layer: string, id: string, dim: 'requests' | 'tokens') => `${prefix}rl:${layer}:{${id}}:${dim}`,
    concurrency: (layer: string, id: string) => `${prefix}cc:${layer}:{${id}}`,
    /** Generic limits (per IP, per key lookups, code cooldowns). */
    policy: (name: string, id: string) => `${prefix}lim:${name}:{${id}}`,
    /** Marks a call finished (with its charge), for finishes that must happen once. */
    finished: (callId: string) => `${prefix}done:{${callId}}`,
    /** Held while a creating call with this Idempotency-Key is being accepted. */
    idempotencyInProgress: (digest: string) => `${prefix}idem:${digest}`,
    usageStream: `${prefix}usage`,
    keyInvalidation: `${prefix}keys:invalidate`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;
export type KeyQuotaKeys = ReturnType<RedisKeys['keyQuota']>;
