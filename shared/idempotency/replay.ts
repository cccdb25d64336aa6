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

/** A stored result of a key under one of several endpoints, with the hash it was stored for. */
export interface StoredUnder extends StoredResult {
  endpoint: string;
  requestHash: Buffer;
  /** The row the result stands for (a task, a private call). */
  taskId: string | null;
}

/**
 * The results stored for one key under any of `endpoints` (the private protocol's `clientRequestId`
 * names a chat call or a task: one primary-key range read), still within their window.
 */
export function findStoredResults(
  db: Db,
  scope: Omit<IdempotencyScope, 'endpoint'>,
  endpoints: readonly string[],
  now: number,
): Promise<StoredUnder[]> {
  return db
    .selectFrom('idempotency_keys')
    .select([
      'endpoint',
      'request_hash as requestHash',
      'response_status as status',
      'response_body as body',
      'task_id as taskId',
    ])
    .where('user_id', '=', scope.userId)
    .where('api_key_id', '=', scope.apiKeyId)
    .where('endpoint', 'in', endpoints)
    .where('key', '=', scope.key)
    .where('expires_at', '>', new Date(now))
    .execute();
}

/** Purges keys past their window (run by the maintenance job). */
export async function purgeExpiredKeys(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', new Date(now)).executeTakeFirst();
  return Number(result.numDeletedRows);
}
