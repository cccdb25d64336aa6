import type { GatewayServices } from '../../shared/gateway/services.js';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import type { TaskKind } from '../../shared/db/schema.js';
import { findUserTask, listUserTasks } from '../../shared/db/tasks.js';
import { notFound } from '../../shared/errors.js';
import { parseOrThrow } from '../../shared/validation.js';
import { authenticateAndCount } from '../http/credential.js';
import { taskIdParam, viewWithLinks } from './task-responses.js';

/** GET /v1/videos/{id} (and image tasks): another account's id answers exactly like a missing one. */
export function getTask(services: GatewayServices, kind: TaskKind): Middleware {
  return async (ctx) => {
    const key = await authenticateAndCount(ctx, services);
    const id = taskIdParam(ctx, kind);
    const task = await findUserTask(services.db, key.userId, kind, id);
    if (!task) throw notFound(`no ${kind} task ${id}`);
    ctx.body = viewWithLinks(services, ctx, task);
  };
}

export const taskListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().min(1).optional(),
});

/** GET /v1/videos: newest first, cursor paging with `after` = the last id of the previous page. */
export function listTasks(services: GatewayServices, kind: TaskKind): Middleware {
  return async (ctx: Context) => {
    const key = await authenticateAndCount(ctx, services);
    const q = parseOrThrow(taskListQuery, ctx.query);
    let after: { createdAt: Date; id: string } | undefined;
    if (q.after) {
      const anchor = await findUserTask(services.db, key.userId, kind, q.after);
      if (!anchor) throw notFound(`no ${kind} task ${q.after}`);
      after = { createdAt: anchor.created_at, id: anchor.id };
    }
    const rows = await listUserTasks(services.db, key.userId, kind, q.limit + 1, after);
    const page = rows.slice(0, q.limit);
    ctx.body = {
      object: 'list',
      data: page.map((t) => viewWithLinks(services, ctx, t)),
      has_more: rows.length > q.limit,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
    };
  };
}
