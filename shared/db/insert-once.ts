import { sql } from 'kysely';
import type { Db } from './index.js';

/** An idempotency key's stored result, written with the row it stands for. */
export interface IdempotentInsert {
  key: string;
  endpoint: string;
  requestHash: Buffer;
  responseStatus: number;
  responseBody: unknown;
  now: Date;
  expiresAt: Date;
}

/**
 * Inserts a row (a task, a private call) and its idempotency key in one statement. A concurrent
 * duplicate waits on the key's primary key until the first commits, then inserts nothing; an
 * expired key is taken over. Returns whether this call inserted the row. jsonb_populate_record types
 * every column from the table itself (absent ones are NULL, not their defaults).
 */
export async function insertOnce(
  db: Db,
  table: 'tasks' | 'private_calls',
  row: { id: string; user_id: string; api_key_id: string | null },
  idem: IdempotentInsert,
): Promise<boolean> {
  const result = await sql<{ id: string }>`
    WITH idem AS (
      INSERT INTO idempotency_keys (user_id, api_key_id, endpoint, key, request_hash, response_status, response_body, task_id, created_at, expires_at)
      VALUES (${row.user_id}, ${row.api_key_id}, ${idem.endpoint}, ${idem.key}, ${idem.requestHash}, ${idem.responseStatus},
              ${JSON.stringify(idem.responseBody)}::json, ${row.id}, ${idem.now}, ${idem.expiresAt})
      ON CONFLICT (user_id, api_key_id, endpoint, key) DO UPDATE SET
        request_hash = EXCLUDED.request_hash, response_status = EXCLUDED.response_status,
        response_body = EXCLUDED.response_body, task_id = EXCLUDED.task_id,
        created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at <= ${idem.now}
      RETURNING task_id
    )
    INSERT INTO ${sql.table(table)} SELECT * FROM jsonb_populate_record(null::${sql.table(table)}, ${JSON.stringify(row)}::jsonb) WHERE EXISTS (SELECT 1 FROM idem)
    RETURNING id`.execute(db);
  return result.rows.length === 1;
}
