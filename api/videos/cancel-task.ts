import type { GatewayServices } from '../../shared/gateway/services.js';
import type { Middleware } from 'koa';
import type { TaskKind, TaskRow } from '../../shared/db/schema.js';
import { advanceTask, findUserTask } from '../../shared/db/tasks.js';
import { GatewayError, notFound } from '../../shared/errors.js';
import { jobId } from '../../shared/jobs/catalog.js';
import { taskProviderFor } from '../../shared/providers/tasks/index.js';
import { authenticateAndCount } from '../http/credential.js';
import { taskIdParam, viewWithLinks } from './task-responses.js';

/**
 * POST /v1/videos/{id}/cancel: a task not yet finished upstream ends `cancelled` and costs nothing
 * (the upstream task is cancelled too when the provider supports it). A finished task answers 409.
 */
export function cancelTask(services: GatewayServices, kind: TaskKind): Middleware {
  return async (ctx) => {
    const key = await authenticateAndCount(ctx, services);
    const id = taskIdParam(ctx, kind);
    ctx.body = viewWithLinks(services, ctx, await cancelOwnerTask(services, key.userId, kind, id));
  };
}

/** Cancels the owner's task if it has not finished upstream (404 for another owner's; 409 once finished); the task as it is now. */
export async function cancelOwnerTask(
  services: GatewayServices,
  userId: string,
  kind: TaskKind,
  id: string,
): Promise<TaskRow> {
  if (!(await findUserTask(services.db, userId, kind, id))) throw notFound(`no ${kind} task ${id}`);
  const now = new Date(services.clock.now());
  const moved = await advanceTask(services.db, id, ['submit', 'poll'], {
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
