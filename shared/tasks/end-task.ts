import type { Db } from '../db/index.js';
import type { TaskRow, TaskStage, TasksTable } from '../db/schema.js';
import { moveTask, type EndStatus } from '../db/tasks.js';
import { recordTaskEnd } from '../webhooks/outbox.js';
import type { Updateable } from 'kysely';

/**
 * Ends a task from the stages given (the compare-and-set of advanceTask) and, in the same
 * transaction, writes the webhook event that announces its end (`video.completed`,
 * `image_task.failed`, …) with a delivery for each endpoint subscribed to it: a task never ends
 * without its event, and no event announces an end that did not happen (a transactional outbox).
 */
export function endTask(
  db: Db,
  id: string,
  from: readonly TaskStage[],
  patch: Updateable<TasksTable> & { status: EndStatus },
): Promise<TaskRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await moveTask(trx, id, from, patch);
    if (row) await recordTaskEnd(trx, row);
    return row;
  });
}
