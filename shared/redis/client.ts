import { Redis, type RedisOptions } from 'ioredis';

/**
 * Commands fail fast while Redis is unreachable (no offline queue, one retry) so a request answers
 * 503 at once instead of hanging; the client keeps reconnecting in the background and recovers by itself.
 */
export function createRedis(url: string, overrides: RedisOptions = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // A stalled Redis answers 503 after this, rather than holding every call.
    commandTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    // Commands issued in the same tick (many concurrent calls) go out in one write.
    enableAutoPipelining: true,
    lazyConnect: true,
    ...overrides,
  });
}

/**
 * The connection the batched admissions and settlements go out on (shared/limits/step-batch.ts).
 * The gateway batches them itself, so no auto-pipelining. And a command sent when the connection
 * drops is never sent again: Redis may already have run it (the reply was what got lost), and an
 * admission or a settlement run twice moves money twice. Its caller gets an error instead (after
 * the command timeout) and what the call held expires on its own.
 */
export function createStepRedis(url: string): Redis {
  return createRedis(url, { enableAutoPipelining: false, autoResendUnfulfilledCommands: false });
}

/** Connects and waits until Redis answers; used at start so the first request is not refused. */
export async function connectRedis(redis: Redis): Promise<void> {
  if (redis.status === 'wait') await redis.connect();
  else if (redis.status !== 'ready') await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
}
