import type { TaskKind, TaskRow } from '../db/schema.js';
import { findUserTask } from '../db/tasks.js';
import { GatewayError, notFound } from '../errors.js';
import type { GatewayServices } from '../gateway/services.js';
import { jobId } from '../jobs/catalog.js';
import { taskProviderFor } from '../providers/tasks/index.js';
import { endTask } from './end-task.js';

/** Cancels the owner's task if it has not finished upstream (404 for another owner's; 409 once finished); the task as it is now. */
export async function cancelOwnerTask(
  services: GatewayServices,
  userId: string,
  kind: TaskKind,
  id: string,
): Promise<TaskRow> {
  if (!(await findUserTask(services.db, userId, kind, id))) throw notFound(`no ${kind} task ${id}`);
  const now = new Date(services.clock.now());
  const moved = await endTask(services.db, id, ['submit', 'poll'], {
    status: 'cancelled',
    stage: 'settle',
    cancel_requested: true,
    finished_at: now,
  });
  if (!moved) {
    const current = (await findUserTask(services.db, userId, kind, id))!;
    if (current.status !== 'cancelled') {
      throw new GatewayError(
        'conflict',
        409,
        `this task already ${current.status === 'expired' ? 'expired' : 'finished'} (${current.status})`,
      );
    }
    return current;
  }
  if (moved.upstream_id) {
    const upstream = services.upstreams.get(moved.provider);
    await taskProviderFor(upstream.provider.protocol)
      .cancel(upstream, moved.upstream_id)
      .catch((err: Error) =>
        services.log.warn({ err: err.message, taskId: id }, 'upstream cancel failed; the task is cancelled here'),
      );
  }
  await services.jobs.enqueue('task-settle', { taskId: id }, { jobId: jobId('task-settle', id) }).catch(() => {});
  return moved;
}
