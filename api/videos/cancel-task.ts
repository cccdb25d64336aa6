import type { GatewayServices } from '../../shared/gateway/services.js';
import type { Middleware } from 'koa';
import type { TaskKind } from '../../shared/db/schema.js';
import { cancelOwnerTask } from '../../shared/tasks/cancel-task.js';
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
