import type { Context } from 'koa';
import type { PrivateCallRow, TaskKind } from '../../shared/db/schema.js';
import { findOwnerPrivateCall, insertPrivateCall, PRIVATE_ENDPOINT, type NewPrivateCall } from '../../shared/db/private-calls.js';
import { findUserTask } from '../../shared/db/tasks.js';
import { GatewayError, isGatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { IDEMPOTENCY_WINDOW_MS } from '../../shared/idempotency/idempotency-key.js';
import { findReplay } from '../../shared/idempotency/replay.js';
import { randomBase62 } from '../../shared/ids.js';
import { jobId } from '../../shared/jobs/catalog.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import type { PrivateCallRequest } from '../../shared/private/call-request.js';
import { privateCallView } from '../../shared/private/call-view.js';
import { callTags } from '../../shared/usage/tags.js';
import { imageTaskRoute } from '../images/create-image-task.js';
import { createRouteTask, type TaskRoute } from '../videos/accept-task.js';
import { videoRoute } from '../videos/create-video-task.js';
import { baseUrl, viewWithLinks } from '../videos/task-responses.js';

export const TASK_ROUTES: Record<TaskKind, TaskRoute<{ model: string }>> = { video: videoRoute as TaskRoute<{ model: string }>, image: imageTaskRoute as TaskRoute<{ model: string }> };

/**
 * The call for this `clientRequestId`: a new one — stored with the id in one statement (the
 * idempotency row's primary key makes a concurrent duplicate wait for it and then find it), handed
 * to its job (chat) or created with its task first (tasks: the task's own `Idempotency-Key`
 * mechanism, keyed by the same id, so a retry after a crash between the two finds the same task) —
 * or the one the id already names: the same body is a replay, another answers 422.
 * `beforeEnqueue` runs before a new chat call's job can start (to start waiting for its end).
 */
export async function acceptCall(
  services: GatewayServices,
  ctx: Context,
  key: ApiKeyContext,
  req: PrivateCallRequest,
  kind: 'chat' | TaskKind,
  body: Record<string, unknown>,
  hash: Buffer,
  options: { status?: 'queued' | 'running'; beforeEnqueue?: (id: string) => void } = {},
): Promise<{ call: PrivateCallRow; replayed: boolean; task?: unknown }> {
  const now = services.clock.now();
  const status = options.status ?? 'queued';
  let taskId: string | null = null;
  let task: unknown;
  if (kind !== 'chat') {
    const tags = callTags(undefined, key.tags);
    try {
      const { created } = await createRouteTask(services, key, TASK_ROUTES[kind], body, { requestId: ctx.state.requestId as string, tags, idempotencyKey: req.clientRequestId, baseUrl: baseUrl(services, ctx) });
      task = created.body;
      taskId = (created.body as { id: string }).id;
    } catch (err) {
      if (isGatewayError(err) && err.code === 'idempotency_key_reused') throw reused();
      throw err;
    }
  }
  const id = `pcall_${now.toString(36)}${randomBase62(16)}`;
  const row: NewPrivateCall = {
    id,
    user_id: key.userId,
    api_key_id: key.id,
    client_request_id: req.clientRequestId,
    request_id: ctx.state.requestId as string,
    kind,
    model: req.model,
    stream: body.stream === true,
    request: body,
    task_id: taskId,
    status,
    created_at: new Date(now).toISOString(),
  };
  const inserted = await insertPrivateCall(services.db, row, { requestHash: hash, now: new Date(now), expiresAt: new Date(now + IDEMPOTENCY_WINDOW_MS) });
  if (!inserted) {
    const scope = { userId: key.userId, apiKeyId: key.id, endpoint: PRIVATE_ENDPOINT, key: req.clientRequestId };
    const stored = await findReplay(services.db, scope, hash, now).catch((err: unknown) => {
      throw isGatewayError(err) && err.code === 'idempotency_key_reused' ? reused() : err;
    });
    const found = stored && (await findOwnerPrivateCall(services.db, key.userId, (stored.body as { task_id: string }).task_id));
    if (!found) throw new GatewayError('idempotency_in_progress', 409, 'a call with this clientRequestId is still being accepted', { retryAfter: 1 });
    return { call: found, replayed: true };
  }
  if (kind === 'chat' && status === 'queued') {
    options.beforeEnqueue?.(id);
    // If Redis is away the call waits in Postgres; the maintenance sweep enqueues it when Redis is back.
    await services.jobs.enqueue('private-chat', { callId: id }, { jobId: jobId('private-chat', id) }).catch((err: Error) => services.log.warn({ err: err.message, callId: id }, 'private chat not enqueued; the sweep will'));
  }
  const call: PrivateCallRow = Object.assign({}, row, { status, result: null, error: null, created_at: new Date(now), finished_at: null });
  return { call, replayed: false, task };
}

const reused = () => new GatewayError('idempotency_key_reused', 422, 'this clientRequestId was used with a different request body', { param: 'clientRequestId' });

/** A call's state as `data` (a task call reads its task). */
export async function viewOf(services: GatewayServices, ctx: Context, key: ApiKeyContext, call: PrivateCallRow) {
  const task = call.task_id && call.kind !== 'chat' ? await findUserTask(services.db, key.userId, call.kind, call.task_id) : undefined;
  return privateCallView(call, task, (t) => viewWithLinks(services, ctx, t));
}

/** The call's state now, read again. */
export async function currentView(services: GatewayServices, ctx: Context, key: ApiKeyContext, call: PrivateCallRow) {
  return viewOf(services, ctx, key, (await findOwnerPrivateCall(services.db, key.userId, call.id)) ?? call);
}
