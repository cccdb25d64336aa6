/**
 * Redis key names in one place. Per-account keys share a hash tag so that one script may touch
 * them all; the usage stream is global (the gateway runs against a single Redis, not a cluster).
 */
export function redisKeys(prefix: string) {
  const acct = (userId: string) => `${prefix}acct:{${userId}}`;
  return {
    balance: (userId: string) => `${acct(userId)}:bal`,
    reservations: (userId: string) => `${acct(userId)}:resv`,
    reservationAmounts: (userId: string) => `${acct(userId)}:resvamt`,
    undrained: (userId: string) => `${acct(userId)}:undrained`,
    epoch: (userId: string) => `${acct(userId)}:epoch`,
    usageStream: `${prefix}usage`,
    keyInvalidation: `${prefix}keys:invalidate`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;
