import type { Context } from 'koa';
import type { PrivateCallRow, TaskKind } from '../../shared/db/schema.js';
import { advancePrivateCall, findOwnerPrivateCall, findPrivateCallByClientId, insertPrivateCall, PRIVATE_ENDPOINT } from '../../shared/db/private-calls.js';
import { findUserTask } from '../../shared/db/tasks.js';
import { GatewayError, isGatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { IDEMPOTENCY_WINDOW_MS } from '../../shared/idempotency/idempotency-key.js';
import { onceByKey } from '../../shared/idempotency/once.js';
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
 * The call for this `clientRequestId`: a new one (stored with the id in one statement, then handed
 * to its job or task), or the one the id already names (same body: replayed; another body: 422).
 */
export async function acceptCall(
  services: GatewayServices,
  ctx: Context,
  key: ApiKeyContext,
  req: PrivateCallRequest,
  kind: 'chat' | TaskKind,
  body: Record<string, unknown>,
  hash: Buffer,
  status: 'queued' | 'running' = 'queued',
): Promise<{ call: PrivateCallRow; replayed: boolean }> {
  const scope = { userId: key.userId, apiKeyId: key.id, endpoint: PRIVATE_ENDPOINT, key: req.clientRequestId };
  const replay = async (): Promise<{ call: PrivateCallRow; replayed: boolean }> => {
    const found = await findPrivateCallByClientId(services.db, key.userId, key.id, req.clientRequestId, services.clock.now());
    if (!found) throw new GatewayError('idempotency_in_progress', 409, 'a call with this clientRequestId is still being accepted', { retryAfter: 1 });
    return { call: found, replayed: true };
  };
  return onceByKey(services, scope, hash, async () => {
    const now = services.clock.now();
    const id = `pcall_${now.toString(36)}${randomBase62(16)}`;
    const inserted = await insertPrivateCall(
      services.db,
      { id, user_id: key.userId, api_key_id: key.id, client_request_id: req.clientRequestId, request_id: ctx.state.requestId as string, kind, model: req.model, stream: body.stream === true, request: body, task_id: null, created_at: new Date(now).toISOString() },
      { requestHash: hash, now: new Date(now), expiresAt: new Date(now + IDEMPOTENCY_WINDOW_MS) },
    );
    if (!inserted) return replay();
    if (status === 'running') await advancePrivateCall(services.db, id, ['queued'], { status: 'running' });
    if (kind === 'chat') {
      // If Redis is away the call waits in Postgres; the maintenance sweep enqueues it when Redis is back.
      if (status === 'queued') await services.jobs.enqueue('private-chat', { callId: id }, { jobId: jobId('private-chat', id) }).catch((err: Error) => services.log.warn({ err: err.message, callId: id }, 'private chat not enqueued; the sweep will'));
    } else {
      try {
        const tags = callTags(undefined, key.tags);
        const { created } = await createRouteTask(services, key, TASK_ROUTES[kind], body, { requestId: ctx.state.requestId as string, tags, idempotencyKey: undefined, baseUrl: baseUrl(services, ctx) });
        await advancePrivateCall(services.db, id, ['queued'], { status: 'queued', taskId: (created.body as { id: string }).id });
      } catch (err) {
        const error = isGatewayError(err) ? { code: err.code, message: err.message, status: err.status } : { code: 'internal_error', message: 'internal error', status: 500 };
        await advancePrivateCall(services.db, id, ['queued'], { status: 'failed', error, finishedAt: new Date(services.clock.now()) });
        throw err;
      }
    }
    return { call: (await findOwnerPrivateCall(services.db, key.userId, id))!, replayed: false };
  }, replay);
}

/** The call's state now (a task call reads its task). */
export async function currentView(services: GatewayServices, ctx: Context, key: ApiKeyContext, call: PrivateCallRow) {
  const fresh = (await findOwnerPrivateCall(services.db, key.userId, call.id)) ?? call;
  const task = fresh.task_id && fresh.kind !== 'chat' ? await findUserTask(services.db, key.userId, fresh.kind, fresh.task_id) : undefined;
  return privateCallView(fresh, task, (t) => viewWithLinks(services, ctx, t));
}

