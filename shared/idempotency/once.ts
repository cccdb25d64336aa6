import { createHash } from 'node:crypto';
import { GatewayError, serviceUnavailable } from '../errors.js';
import type { GatewayServices } from '../gateway/services.js';
import { findReplay, type IdempotencyScope, type StoredResult } from './replay.js';

/** How long a duplicate waits for the first request's result before answering 409. */
const IN_PROGRESS_WAIT_MS = 10_000;
/** The in-progress marker of a process that died frees the key after this. */
const IN_PROGRESS_TTL_MS = 30_000;

function scopeDigest(scope: IdempotencyScope): string {
  return createHash('sha256')
    .update(JSON.stringify([scope.userId, scope.apiKeyId, scope.endpoint, scope.key]))
    .digest('base64url');
}

/**
 * The one idempotency mechanism of creating calls (`Idempotency-Key` on tasks, `clientRequestId` on
 * the private protocol): a key already used within its window replays its first result (`replay`;
 * another body under it answers 422); otherwise one request per key does the work (`create`, which
 * stores the result with the key in one statement) while a concurrent duplicate waits (bounded) for
 * that result instead of reserving money or limits a second time. Called before the call is routed,
 * priced or authorized for its model: `create` does all of that, so a replay depends on none of it.
 */
export async function onceByKey<T>(
  services: GatewayServices,
  scope: IdempotencyScope,
  hash: Buffer,
  create: () => Promise<T>,
  replay: (stored: StoredResult) => Promise<T>,
  options: { lookedUp?: boolean } = {},
): Promise<T> {
  // `lookedUp`: the caller has just looked (the private protocol looks across call kinds first).
  const stored = options.lookedUp ? undefined : await findReplay(services.db, scope, hash, services.clock.now());
  if (stored) return replay(stored);
  const marker = services.redisKeys.idempotencyInProgress(scopeDigest(scope));
  const waitUntil = Date.now() + IN_PROGRESS_WAIT_MS;
  while (
    (await services.redis
      .set(marker, '1', 'PX', IN_PROGRESS_TTL_MS, 'NX')
      .catch(() => Promise.reject(serviceUnavailable()))) !== 'OK'
  ) {
    await new Promise((r) => setTimeout(r, 25));
    const found = await findReplay(services.db, scope, hash, services.clock.now());
    if (found) return replay(found);
    if (Date.now() > waitUntil) {
      throw new GatewayError(
        'idempotency_in_progress',
        409,
        `a request with this ${scope.endpoint === 'server' ? 'clientRequestId' : 'Idempotency-Key'} is still being accepted`,
        { retryAfter: 1 },
      );
    }
  }
  try {
    return await create();
  } finally {
    await services.redis.del(marker).catch(() => {});
  }
}
