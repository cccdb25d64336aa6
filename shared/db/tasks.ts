import { sql } from 'kysely';
import type { Db, Trx } from './index.js';
import { insertOnce, type IdempotentInsert } from './insert-once.js';
import type { TaskKind, TaskRow, TaskStage, TaskStatus, TasksTable } from './schema.js';
import type { Updateable } from 'kysely';

/**
 * Inserts a task, and with an idempotency key also the key's stored result, in one statement (see
 * insertOnce). Returns whether this call created the task.
 */
export async function insertTask(db: Db, task: NewTask, idem?: IdempotentInsert): Promise<boolean> {
  if (idem) return insertOnce(db, 'tasks', task, idem);
  // jsonb_populate_record types every column from the table itself, so one statement carries it all.
  await sql`INSERT INTO tasks SELECT * FROM jsonb_populate_record(null::tasks, ${JSON.stringify(task)}::jsonb)`.execute(
    db,
  );
  return true;
}

/** Every column of a new task: jsonb_populate_record fills absent ones with NULL, not their defaults. */
export type NewTask = Omit<
  TaskRow,
  'request' | 'usage' | 'created_at' | 'updated_at' | 'started_at' | 'finished_at' | 'deadline_at'
> & {
  request: Record<string, unknown>;
  usage: null;
  created_at: string;
  updated_at: string;
  started_at: null;
  finished_at: null;
  deadline_at: string;
};

export function findUserTask(db: Db, userId: string, kind: TaskKind, id: string): Promise<TaskRow | undefined> {
  return db
    .selectFrom('tasks')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .executeTakeFirst();
}

export function findTask(db: Db, id: string): Promise<TaskRow | undefined> {
  return db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Newest first; the cursor is the last row's (created_at, id). */
export function listUserTasks(
  db: Db,
  userId: string,
  kind: TaskKind,
  limit: number,
  after?: { createdAt: Date; id: string },
) {
  let q = db.selectFrom('tasks').selectAll().where('user_id', '=', userId).where('kind', '=', kind);
  if (after) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The statuses a task ends in: reached only through endTask (shared/tasks/end-task.ts), which announces them. */
export type EndStatus = 'succeeded' | 'failed' | 'cancelled' | 'expired';

/**
 * Moves a task on only from the stages given: the compare-and-set that makes every job idempotent
 * (a second run, or a racing cancel, finds the stage moved and does nothing). Never to an end
 * status (the type says so): that is endTask's, which writes the task's webhook event with it.
 */
export function advanceTask(
  db: Db,
  id: string,
  from: readonly TaskStage[],
  patch: Updateable<TasksTable> & { status?: Exclude<TaskStatus, EndStatus> },
): Promise<TaskRow | undefined> {
  return moveTask(db, id, from, patch);
}

/** advanceTask without the type's guard, in the caller's transaction: for endTask only. */
export function moveTask(
  db: Db | Trx,
  id: string,
  from: readonly TaskStage[],
  patch: Updateable<TasksTable>,
): Promise<TaskRow | undefined> {
  return db
    .updateTable('tasks')
    .set({ ...patch, updated_at: new Date() })
    .where('id', '=', id)
    .where('stage', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/** Tasks still in flight, oldest first (the reconciler re-enqueues their next job after a Redis loss). */
export function openTasks(db: Db, limit: number, updatedBefore: Date) {
  return db
    .selectFrom('tasks')
    .select(['id', 'stage', 'polls', 'trace_context'])
    .where('stage', '<>', 'done')
    .where('updated_at', '<', updatedBefore)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}
