import type { GatewayServices } from '../../shared/gateway/services.js';
import { notFound } from '../../shared/errors.js';
import type { Context } from 'koa';
import type { TaskRow } from '../../shared/db/schema.js';
import { linkUrl, signLink } from '../../shared/storage/signed-links.js';
import type { CreatedTask } from '../../shared/tasks/create-task.js';
import { taskView } from '../../shared/tasks/task-view.js';
import { baseUrl } from '../http/base-url.js';

/** A stored_url works for this long; every read of the task makes a fresh one. */
const LINK_TTL_MS = 60 * 60 * 1000;

export function answerCreated(ctx: Context, created: CreatedTask, modelId: string): void {
  if (created.replayed) ctx.set('Idempotent-Replayed', 'true');
  ctx.set('X-Service-Model', modelId);
  ctx.status = created.status;
  ctx.body = created.body;
}

export { baseUrl };

export function viewWithLinks(services: GatewayServices, ctx: Context, task: TaskRow) {
  const base = baseUrl(services, ctx);
  const expiresAt = services.clock.now() + LINK_TTL_MS;
  return taskView(task, (t, objectKey) => {
    const filename = objectKey.slice(objectKey.lastIndexOf('/') + 1);
    return linkUrl(base, signLink({ objectKey, userId: t.user_id, expiresAt, filename }, services.linkSecret));
  });
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
