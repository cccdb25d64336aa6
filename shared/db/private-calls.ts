import { sql } from 'kysely';
import type { Db } from './index.js';
import type { PrivateCallKind, PrivateCallRow, TaskRow, TaskStatus } from './schema.js';

export interface NewPrivateCall {
  id: string;
  user_id: string;
  api_key_id: string;
  client_request_id: string;
  request_id: string;
  kind: PrivateCallKind;
  model: string;
  stream: boolean;
  request: Record<string, unknown>;
  status: 'queued' | 'running';
  created_at: string;
}

export interface PrivateIdempotency {
  requestHash: Buffer;
  now: Date;
  expiresAt: Date;
}

/** The idempotency endpoint of the private protocol: one `clientRequestId` space per key, whatever the call's kind. */
export const PRIVATE_ENDPOINT = 'server';

/**
 * Inserts the call and its `clientRequestId` in one statement: false when the id is already taken
 * within its window (a concurrent duplicate won), and then nothing is inserted.
 */
export async function insertPrivateCall(db: Db, call: NewPrivateCall, idem: PrivateIdempotency): Promise<boolean> {
  const result = await sql<{ id: string }>`
    WITH idem AS (
      INSERT INTO idempotency_keys (user_id, api_key_id, endpoint, key, request_hash, response_status, response_body, task_id, created_at, expires_at)
      VALUES (${call.user_id}, ${call.api_key_id}, ${PRIVATE_ENDPOINT}, ${call.client_request_id}, ${idem.requestHash}, 200,
              ${JSON.stringify({ task_id: call.id })}::json, ${call.id}, ${idem.now}, ${idem.expiresAt})
      ON CONFLICT (user_id, api_key_id, endpoint, key) DO UPDATE SET
        request_hash = EXCLUDED.request_hash, response_status = EXCLUDED.response_status,
        response_body = EXCLUDED.response_body, task_id = EXCLUDED.task_id,
        created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at <= ${idem.now}
      RETURNING task_id
    )
    INSERT INTO private_calls (id, user_id, api_key_id, client_request_id, request_id, kind, model, stream, request, status, created_at)
    SELECT ${call.id}, ${call.user_id}, ${call.api_key_id}, ${call.client_request_id}, ${call.request_id}, ${call.kind}, ${call.model},
           ${call.stream}, ${JSON.stringify(call.request)}::jsonb, ${call.status}, ${call.created_at}
    WHERE EXISTS (SELECT 1 FROM idem)
    RETURNING id`.execute(db);
  return result.rows.length === 1;
}

/** A call by its id, for its owner only (another owner's id is a miss). */
export function findOwnerPrivateCall(db: Db, userId: string, id: string): Promise<PrivateCallRow | undefined> {
  return db.selectFrom('private_calls').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

export function findPrivateCall(db: Db, id: string): Promise<PrivateCallRow | undefined> {
  return db.selectFrom('private_calls').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A call by the key's `clientRequestId`, within its 24-hour window. */
export async function findPrivateCallByClientId(db: Db, userId: string, keyId: string, clientRequestId: string, now: number): Promise<PrivateCallRow | undefined> {
  return db
    .selectFrom('idempotency_keys as i')
    .innerJoin('private_calls as c', 'c.id', 'i.task_id')
    .selectAll('c')
    .where('i.user_id', '=', userId)
    .where('i.api_key_id', '=', keyId)
    .where('i.endpoint', '=', PRIVATE_ENDPOINT)
    .where('i.key', '=', clientRequestId)
    .where('i.expires_at', '>', new Date(now))
    .executeTakeFirst();
}

/** Takes a chat call for its job (queued, or running when a job before it died): the call, or undefined when it ended. */
export function claimPrivateCall(db: Db, id: string): Promise<PrivateCallRow | undefined> {
  return db.updateTable('private_calls').set({ status: 'running' }).where('id', '=', id).where('status', 'in', ['queued', 'running']).returningAll().executeTakeFirst();
}

/** Moves a call from one of `from` to `status`; false when it was not in one of them (another worker, or already ended). */
export async function advancePrivateCall(
  db: Db,
  id: string,
  from: readonly TaskStatus[],
  update: { status: TaskStatus; result?: unknown; error?: { code: string; message: string; status: number } | null; finishedAt?: Date },
): Promise<boolean> {
  const result = await db
    .updateTable('private_calls')
    .set({
      status: update.status,
      ...(update.result !== undefined && { result: JSON.stringify(update.result) }),
      ...(update.error !== undefined && { error: update.error === null ? null : JSON.stringify(update.error) }),
      ...(update.finishedAt && { finished_at: update.finishedAt.toISOString() }),
    })
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Chat calls queued or running longer than `olderThan` (their job lost with Redis, or never enqueued). */
export function stalePrivateChats(db: Db, olderThan: Date, limit: number): Promise<{ id: string }[]> {
  return db
    .selectFrom('private_calls')
    .select('id')
    // A stream runs in the API that relays it: there is no job to re-drive.
    .where('stream', '=', false)
    .where('status', 'in', ['queued', 'running'])
    .where('created_at', '<', olderThan)
    .limit(limit)
    .execute();
}

/** A task of the owner, any kind (a private call's `taskId`). */
export function findOwnerTask(db: Db, userId: string, id: string): Promise<TaskRow | undefined> {
  return db.selectFrom('tasks').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

// A task call's clientRequestId is its task's Idempotency-Key, kept by the task mechanism.
const TASK_ENDPOINTS = ['videos', 'images/tasks'];

/** The task this key created under `clientRequestId` (as its Idempotency-Key), within the window. */
export function findTaskByIdempotencyKey(db: Db, key: { userId: string; id: string }, clientRequestId: string, now: number): Promise<TaskRow | undefined> {
  return db
    .selectFrom('idempotency_keys as i')
    .innerJoin('tasks as t', 't.id', 'i.task_id')
    .selectAll('t')
    .where('i.user_id', '=', key.userId)
    .where('i.api_key_id', '=', key.id)
    .where('i.endpoint', 'in', TASK_ENDPOINTS)
    .where('i.key', '=', clientRequestId)
    .where('i.expires_at', '>', new Date(now))
    .executeTakeFirst();
}

/** The clientRequestId a task was created under by this key, if any. */
export async function clientRequestIdOf(db: Db, key: { userId: string; id: string }, taskId: string): Promise<string | null> {
  const row = await db.selectFrom('idempotency_keys').select('key').where('user_id', '=', key.userId).where('api_key_id', '=', key.id).where('endpoint', 'in', TASK_ENDPOINTS).where('task_id', '=', taskId).executeTakeFirst();
  return row?.key ?? null;
}
