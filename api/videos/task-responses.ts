import type { GatewayServices } from '../../shared/gateway/services.js';
import { notFound } from '../../shared/errors.js';
import type { Context } from 'koa';
import type { TaskRow } from '../../shared/db/schema.js';
import type { CreatedTask } from '../../shared/tasks/create-task.js';
import { taskViewWithLinks } from '../../shared/tasks/task-links.js';
import { baseUrl } from '../http/base-url.js';

export function answerCreated(ctx: Context, created: CreatedTask, modelId: string): void {
  if (created.replayed) ctx.set('Idempotent-Replayed', 'true');
  ctx.set('X-Service-Model', modelId);
  ctx.status = created.status;
  ctx.body = created.body;
}

export { baseUrl };

/** The task with fresh links to its stored results, on the origin this request reached. */
export function viewWithLinks(services: GatewayServices, ctx: Context, task: TaskRow) {
  return taskViewWithLinks(services, baseUrl(services, ctx), task);
}

// Task ids are `<kind>_<base36 time><base62>`; anything else (a NUL byte, a path of another shape)
// is a missing task and never reaches Postgres, which would reject some of it outright.
const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The `:id` of a task route; a malformed id answers exactly like a missing task. */
export function taskIdParam(ctx: Context, kind: string): string {
  const id = String(ctx.params.id ?? '');
  if (!TASK_ID.test(id)) throw notFound(`no ${kind} task ${JSON.stringify(id).slice(1, -1)}`);
  return id;
}
