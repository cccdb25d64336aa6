import type { Context } from 'koa';
import type { PrivateCallRow, TaskKind, TaskRow } from '../../shared/db/schema.js';
import {
  clientRequestIdOf,
  findOwnerPrivateCall,
  findOwnerTask,
  findPrivateCallByClientId,
  findTaskByIdempotencyKey,
  insertPrivateCall,
  PRIVATE_ENDPOINT,
  releaseClientRequestId,
  type NewPrivateCall,
} from '../../shared/db/private-calls.js';
import { GatewayError, isGatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { IDEMPOTENCY_WINDOW_MS } from '../../shared/idempotency/idempotency-key.js';
import { findReplay } from '../../shared/idempotency/replay.js';
import { randomBase62 } from '../../shared/ids.js';
import { jobTraceCarrier } from '../../shared/telemetry/spans.js';
import { jobId } from '../../shared/jobs/catalog.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import type { PrivateCallRequest } from '../../shared/private/call-request.js';
import { ENDED_STATUSES, privateCallView, taskCallView } from '../../shared/private/call-view.js';
import { plannedJob } from '../../shared/private/chat-job.js';
import { wasRefused } from '../../shared/private/refusals.js';
import { imageTaskRoute } from '../../shared/tasks/image-route.js';
import { createRouteTask, type TaskRoute } from '../../shared/tasks/task-route.js';
import { videoRoute } from '../../shared/tasks/video-route.js';
import { baseUrl, viewWithLinks } from '../videos/task-responses.js';
import type { PrivateChat } from './chat-call.js';

export const TASK_ROUTES: Record<TaskKind, TaskRoute<{ model: string }>> = {
  video: videoRoute as TaskRoute<{ model: string }>,
  image: imageTaskRoute as TaskRoute<{ model: string }>,
};

/** A chat call this key made (a `private_calls` row), or a task call (the task itself). */
export type FoundCall =
  | { kind: 'chat'; call: PrivateCallRow }
  | { kind: 'task'; task: TaskRow; clientRequestId: string | null };

const reused = () =>
  new GatewayError('idempotency_key_reused', 422, 'this clientRequestId was used with a different request body', {
    param: 'clientRequestId',
  });

/**
 * A task call: the standard task, created under the task mechanism's own idempotency keyed by the
 * `clientRequestId` (so a repeated id answers the same task and never charges again). Nothing else
 * is stored: the task is the call, and its id the `task_id`.
 */
export async function acceptTaskCall(
  services: GatewayServices,
  ctx: Context,
  key: ApiKeyContext,
  req: PrivateCallRequest,
  kind: TaskKind,
  body: Record<string, unknown>,
  tags: string[],
): Promise<{ taskId: string; status: string; replayed: boolean }> {
  try {
    const { created } = await createRouteTask(services, key, TASK_ROUTES[kind], body, {
      requestId: ctx.state.requestId as string,
      tags,
      idempotencyKey: req.clientRequestId,
      baseUrl: baseUrl(services, ctx),
      // The handler looked for this id's stored result first (replay-call.ts).
      replayChecked: true,
    });
    const view = created.body as { id: string; status: string };
    return { taskId: view.id, status: view.status, replayed: created.replayed };
  } catch (err) {
    throw isGatewayError(err) && err.code === 'idempotency_key_reused' ? reused() : err;
  }
}

/**
 * A chat call for this `clientRequestId`: a new one, stored with the id in one statement (the
 * idempotency row's primary key makes a concurrent duplicate wait for it and then find it) — the
 * only place its body is kept — and handed to its job with step 4's plan; or the one the id already
 * names (the same body is a replay, another answers 422). A call the id names that was refused
 * before it ran (refusals.ts) is no result: the id is freed from it and the call accepted anew.
 * `beforeEnqueue` runs before a new call's job can start (to start waiting for its end).
 */
export async function acceptChatCall(
  services: GatewayServices,
  ctx: Context,
  key: ApiKeyContext,
  req: PrivateCallRequest,
  chat: PrivateChat,
  identity: { hash: Buffer; tags: string[] },
  options: { status?: 'queued' | 'running'; beforeEnqueue?: (id: string) => void } = {},
): Promise<{ call: PrivateCallRow; replayed: boolean }> {
  const now = services.clock.now();
  const status = options.status ?? 'queued';
  const id = `pcall_${now.toString(36)}${randomBase62(16)}`;
  const row: NewPrivateCall = {
    id,
    user_id: key.userId,
    api_key_id: key.id,
    client_request_id: req.clientRequestId,
    request_id: ctx.state.requestId as string,
    kind: 'chat',
    model: req.model,
    stream: chat.parsed.stream,
    request: chat.parsed.body,
    status,
    tags: identity.tags,
    created_at: new Date(now).toISOString(),
    trace_context: jobTraceCarrier() ?? null,
  };
  const idem = { requestHash: identity.hash, now: new Date(now), expiresAt: new Date(now + IDEMPOTENCY_WINDOW_MS) };
  // A few times at most: between a concurrent retry freeing the id and taking it, the id names nothing.
  for (let attempt = 0; !(await insertPrivateCall(services.db, row, idem)); attempt++) {
    const held = await findPrivateCallByClientId(services.db, key.userId, key.id, req.clientRequestId, now);
    if (attempt < 4 && (!held || wasRefused(held))) {
      if (held) await releaseClientRequestId(services.db, key, req.clientRequestId, held.id);
      continue;
    }
    return { call: await replayedCall(services, key, req, identity.hash, now), replayed: true };
  }
  if (status === 'queued') {
    options.beforeEnqueue?.(id);
    // If Redis is away the call waits in Postgres; the maintenance sweep enqueues it when Redis is back.
    await services.jobs
      .enqueue('private-chat', plannedJob(id, chat.plan, chat.bytes), { jobId: jobId('private-chat', id) })
      .catch((err: Error) =>
        services.log.warn({ err: err.message, callId: id }, 'private chat not enqueued; the sweep will'),
      );
  }
  return {
    call: Object.assign({}, row, { status, result: null, error: null, created_at: new Date(now), finished_at: null }),
    replayed: false,
  };
}

/** The call a `clientRequestId` names, for the same body (another answers 422). */
async function replayedCall(
  services: GatewayServices,
  key: ApiKeyContext,
  req: PrivateCallRequest,
  hash: Buffer,
  now: number,
): Promise<PrivateCallRow> {
  const scope = { userId: key.userId, apiKeyId: key.id, endpoint: PRIVATE_ENDPOINT, key: req.clientRequestId };
  const stored = await findReplay(services.db, scope, hash, now).catch((err: unknown) => {
    throw isGatewayError(err) && err.code === 'idempotency_key_reused' ? reused() : err;
  });
  const found =
    stored && (await findOwnerPrivateCall(services.db, key.userId, (stored.body as { task_id: string }).task_id));
  if (!found)
    throw new GatewayError('idempotency_in_progress', 409, 'a call with this clientRequestId is still being accepted', {
      retryAfter: 1,
    });
  return found;
}

/** A call of this key by `clientRequestId` (24 h), or of this key's owner by `taskId`; another owner's is a miss. */
export async function findCall(
  services: GatewayServices,
  key: ApiKeyContext,
  by: { clientRequestId?: string | undefined; taskId?: string | undefined },
): Promise<FoundCall | undefined> {
  const { db } = services;
  if (by.taskId !== undefined) {
    if (by.taskId.startsWith('pcall_')) {
      const call = await findOwnerPrivateCall(db, key.userId, by.taskId);
      return call && { kind: 'chat', call };
    }
    const task = await findOwnerTask(db, key.userId, by.taskId);
    return task && { kind: 'task', task, clientRequestId: await clientRequestIdOf(db, key, task.id) };
  }
  const crid = by.clientRequestId!;
  const call = await findPrivateCallByClientId(db, key.userId, key.id, crid, services.clock.now());
  if (call) return { kind: 'chat', call };
  const task = await findTaskByIdempotencyKey(db, key, crid, services.clock.now());
  return task && { kind: 'task', task, clientRequestId: crid };
}

/**
 * A task call's state once its task ended, or as it is when `waitMs` ran out: the wait wakes on the
 * task's end (the settle job announces it on the same channel as chat calls: call-waiter.ts), and
 * is registered before the task is read, so an end between the two is not missed.
 */
export async function taskCallAfter(
  services: GatewayServices,
  key: ApiKeyContext,
  taskId: string,
  waitMs: number,
): Promise<FoundCall | undefined> {
  if (waitMs <= 0) return findCall(services, key, { taskId });
  const waiter = services.calls.until(taskId, waitMs);
  try {
    const found = await findCall(services, key, { taskId });
    if (found?.kind !== 'task' || ENDED_STATUSES.has(found.task.status)) return found;
    await waiter.done;
    return await findCall(services, key, { taskId });
  } finally {
    waiter.cancel();
  }
}

/** A call's state as `data`. */
export function viewOf(services: GatewayServices, ctx: Context, found: FoundCall) {
  if (found.kind === 'chat') return privateCallView(found.call);
  return taskCallView(found.task, found.clientRequestId, (t) => viewWithLinks(services, ctx, t));
}
