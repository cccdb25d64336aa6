import type { Db } from '../db/index.js';
import { GatewayError } from '../errors.js';

export interface IdempotencyScope {
  userId: string;
  apiKeyId: string;
  endpoint: string;
  key: string;
}

export interface StoredResult {
  status: number;
  body: unknown;
}

/**
 * The first result stored for this key, if it is still within its window. A different request
 * under the same key answers 422: a key names one operation, never two.
 */
export async function findReplay(
  db: Db,
  scope: IdempotencyScope,
  hash: Buffer,
  now: number,
): Promise<StoredResult | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'response_status', 'response_body'])
    .where('user_id', '=', scope.userId)
    .where('api_key_id', '=', scope.apiKeyId)
    .where('endpoint', '=', scope.endpoint)
    .where('key', '=', scope.key)
    .where('expires_at', '>', new Date(now))
    .executeTakeFirst();
  if (!row) return undefined;
  if (!row.request_hash.equals(hash)) {
    throw new GatewayError(
      'idempotency_key_reused',
      422,
      'this Idempotency-Key was used with a different request body',
      {
        param: 'Idempotency-Key',
      },
    );
  }
  return { status: row.response_status, body: row.response_body };
}

/** Purges keys past their window (run by the maintenance job). */
export async function purgeExpiredKeys(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', new Date(now)).executeTakeFirst();
  return Number(result.numDeletedRows);
}
