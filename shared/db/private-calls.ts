import type { Db } from './index.js';
import { insertOnce } from './insert-once.js';
import type { PrivateCallKind, PrivateCallRow, TaskRow, TaskStatus } from './schema.js';
import type { TraceCarrier } from '../telemetry/spans.js';

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
  /** The key's tags and the request's `X-Service-Tags`: the usage record's, whenever the job runs. */
  tags: string[];
  created_at: string;
  /** The creating request's (jobTraceCarrier), for a job the maintenance sweep enqueues again. */
  trace_context: TraceCarrier | null;
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
export function insertPrivateCall(db: Db, call: NewPrivateCall, idem: PrivateIdempotency): Promise<boolean> {
  return insertOnce(db, 'private_calls', call, {
    key: call.client_request_id,
    endpoint: PRIVATE_ENDPOINT,
    requestHash: idem.requestHash,
    responseStatus: 200,
    responseBody: { task_id: call.id },
    now: idem.now,
    expiresAt: idem.expiresAt,
  });
}

/**
 * Frees the key's `clientRequestId` from a call that was refused before it ran (steps 1-6): the id
 * then names no result, and the next call with it is accepted anew. Only while the id still names
 * `callId` (a concurrent retry that freed it first and took it keeps it).
 */
export async function releaseClientRequestId(
  db: Db,
  key: { userId: string; id: string },
  clientRequestId: string,
  callId: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('user_id', '=', key.userId)
    .where('api_key_id', '=', key.id)
    .where('endpoint', '=', PRIVATE_ENDPOINT)
    .where('key', '=', clientRequestId)
    .where('task_id', '=', callId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** A call by its id, for its owner only (another owner's id is a miss). */
export function findOwnerPrivateCall(db: Db, userId: string, id: string): Promise<PrivateCallRow | undefined> {
  return db
    .selectFrom('private_calls')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export function findPrivateCall(db: Db, id: string): Promise<PrivateCallRow | undefined> {
  return db.selectFrom('private_calls').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A call by the key's `clientRequestId`, within its 24-hour window. */
export async function findPrivateCallByClientId(
  db: Db,
  userId: string,
  keyId: string,
  clientRequestId: string,
  now: number,
): Promise<PrivateCallRow | undefined> {
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
  return db
    .updateTable('private_calls')
    .set({ status: 'running' })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .returningAll()
    .executeTakeFirst();
}

/** Moves a call from one of `from` to `status`; false when it was not in one of them (another worker, or already ended). */
export async function advancePrivateCall(
  db: Db,
  id: string,
  from: readonly TaskStatus[],
  update: {
    status: TaskStatus;
    result?: unknown;
    error?: { code: string; message: string; status: number; retryAfter?: number } | null;
    finishedAt?: Date;
  },
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
export function stalePrivateChats(
  db: Db,
  olderThan: Date,
  limit: number,
): Promise<Pick<PrivateCallRow, 'id' | 'trace_context'>[]> {
  return (
    db
      .selectFrom('private_calls')
      .select(['id', 'trace_context'])
      // A stream runs in the API that relays it: there is no job to re-drive.
      .where('stream', '=', false)
      .where('status', 'in', ['queued', 'running'])
      .where('created_at', '<', olderThan)
      .limit(limit)
      .execute()
  );
}

/** A task of the owner, any kind (a private call's `taskId`). */
export function findOwnerTask(db: Db, userId: string, id: string): Promise<TaskRow | undefined> {
  return db.selectFrom('tasks').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

// A task call's clientRequestId is its task's Idempotency-Key, kept by the task mechanism.
const TASK_ENDPOINTS = ['videos', 'images/tasks'];

/** The task this key created under `clientRequestId` (as its Idempotency-Key), within the window. */
export function findTaskByIdempotencyKey(
  db: Db,
  key: { userId: string; id: string },
  clientRequestId: string,
  now: number,
): Promise<TaskRow | undefined> {
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
export async function clientRequestIdOf(
  db: Db,
  key: { userId: string; id: string },
  taskId: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select('key')
    .where('user_id', '=', key.userId)
    .where('api_key_id', '=', key.id)
    .where('endpoint', 'in', TASK_ENDPOINTS)
    .where('task_id', '=', taskId)
    .executeTakeFirst();
  return row?.key ?? null;
}
