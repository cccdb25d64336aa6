import type { CallEnded } from '../../shared/private/call-waiter.js';
import type { Context, Middleware } from 'koa';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import type { PrivateCallRow, TaskKind } from '../../shared/db/schema.js';
import { findOwnerPrivateCall } from '../../shared/db/private-calls.js';
import { GatewayError, type ErrorCode } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { requestHash } from '../../shared/idempotency/idempotency-key.js';
import { privateCallSchema, privateLookupSchema } from '../../shared/private/call-request.js';
import { ENDED_STATUSES } from '../../shared/private/call-view.js';
import { parseOrThrow } from '../../shared/validation.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateRequest } from '../http/credential.js';
import { cancelOwnerTask } from '../../shared/tasks/cancel-task.js';
import { sendFailure, sendMiss, sendSuccess } from './envelope.js';
import { streamPrivateChat } from './stream-call.js';
import {
  acceptChatCall,
  acceptTaskCall,
  findCall,
  taskCallAfter,
  TASK_ROUTES,
  viewOf,
  type FoundCall,
} from './calls.js';
import { readChatCall, withinInput } from './chat-call.js';

const DEFAULT_CHAT_WAIT_MS = 30_000;

/** Steps 1-3 with the key from the body (read and size-limited first): an `ak-` key, and only one. */
async function authenticateBody(
  ctx: Context,
  services: GatewayServices,
): Promise<{ key: ApiKeyContext; body: Record<string, unknown> }> {
  const body = await readJsonObject(ctx, services.config.http.bodyLimitBytes);
  const secret = typeof body.value.apiKey === 'string' && body.value.apiKey !== '' ? body.value.apiKey : undefined;
  const key = await authenticateRequest(ctx, services, { secret, ip: ctx.ip, privateRoute: true });
  return { key, body: body.value };
}

/** What a call is: a chat call for chat models (and presets, auto), a task for video and image models. */
function kindOf(services: GatewayServices, model: string): 'chat' | TaskKind {
  const endpoints = services.catalog.models.get(model)?.endpoints ?? [];
  if (endpoints.includes('videos')) return 'video';
  if (endpoints.includes('images/tasks')) return 'image';
  return 'chat';
}

/**
 * POST /server/v1/call, the private protocol (docs/reference/private-protocol.md): the key in the body, every
 * creating call a durable record keyed by the key's `clientRequestId` (24 hours; a replay answers
 * the first call's state and never runs or charges it again), chat calls run as jobs the API waits
 * for through Redis, task calls as the standard tasks.
 */
export function privateCall(services: GatewayServices): Middleware {
  const log = logError(services);
  return async (ctx) => {
    let key: ApiKeyContext | undefined;
    try {
      const authed = await authenticateBody(ctx, services);
      key = authed.key;
      const req = parseOrThrow(privateCallSchema, authed.body);
      const { apiKey: _key, wait_ms: _wait, ...identity } = authed.body;
      const hash = requestHash(identity);
      const kind = kindOf(services, req.model);
      if (kind === 'chat') {
        const chat = await readChatCall(services, key, req); // parsed and step 4 once, before anything is stored
        if (chat.parsed.stream) return await streamPrivateChat(services, ctx, key, req, chat, hash);
        // The wait starts before the job can: its end is never missed.
        const waitMs = req.wait_ms ?? DEFAULT_CHAT_WAIT_MS;
        let waiter: ReturnType<typeof services.calls.until> | undefined;
        try {
          const accepted = await acceptChatCall(services, ctx, key, req, chat, hash, {
            beforeEnqueue: (id) => (waiter = waitMs > 0 ? services.calls.until(id, waitMs) : undefined),
          });
          if (accepted.replayed && waitMs > 0) waiter = services.calls.until(accepted.call.id, waitMs);
          const call = await settledCall(services, key, accepted.call, waiter, accepted.replayed);
          // A chat call refused when it ran (steps 5-6: balance, quota, limits) or failed upstream answers
          // as an error, as /v1/chat/completions would; getResult keeps showing its state.
          if (call.status === 'failed' && call.error)
            throw new GatewayError(call.error.code as ErrorCode, call.error.status, call.error.message);
          return sendSuccess(ctx, key.profile, viewOf(services, ctx, { kind: 'chat', call }));
        } finally {
          waiter?.cancel();
        }
      }
      const route = TASK_ROUTES[kind];
      const body = Object.assign({}, req.input, { model: req.model });
      withinInput(() => route.parse(body));
      const accepted = await acceptTaskCall(services, ctx, key, req, kind, body);
      const waitMs = req.wait_ms ?? 0;
      if (waitMs <= 0 && !accepted.replayed)
        return sendSuccess(ctx, key.profile, {
          task_id: accepted.taskId,
          client_request_id: req.clientRequestId,
          status: accepted.status,
        });
      // A task call waited for wakes when its task ends, or when the wait runs out.
      const found = await taskCallAfter(services, key, accepted.taskId, waitMs);
      sendSuccess(
        ctx,
        key.profile,
        found
          ? viewOf(services, ctx, Object.assign(found, { clientRequestId: req.clientRequestId }))
          : { task_id: accepted.taskId, client_request_id: req.clientRequestId, status: accepted.status },
      );
    } catch (err) {
      sendFailure(ctx, key?.profile, err, log);
    }
  };
}

const logError = (services: GatewayServices) => (err: unknown) => services.log.error({ err }, 'unhandled error');

/** getResult and cancel: the key from the body, the call it names (a miss answers per profile), then `act`. */
function onFoundCall(
  services: GatewayServices,
  act: (ctx: Context, key: ApiKeyContext, found: FoundCall) => Promise<void>,
): Middleware {
  const log = logError(services);
  return async (ctx) => {
    let key: ApiKeyContext | undefined;
    try {
      const authed = await authenticateBody(ctx, services);
      key = authed.key;
      const found = await findCall(services, key, parseOrThrow(privateLookupSchema, authed.body));
      if (!found) return sendMiss(ctx, key.profile);
      await act(ctx, key, found);
    } catch (err) {
      sendFailure(ctx, key?.profile, err, log);
    }
  };
}

/** POST /server/v1/getResult: the call's state. */
export const privateGetResult = (services: GatewayServices): Middleware =>
  onFoundCall(services, async (ctx, key, found) => sendSuccess(ctx, key.profile, viewOf(services, ctx, found)));

/** POST /server/v1/cancel: a video or image call not finished upstream ends cancelled. */
export const privateCancel = (services: GatewayServices): Middleware =>
  onFoundCall(services, async (ctx, key, found) => {
    if (found.kind === 'chat') throw new GatewayError('conflict', 409, 'only video and image calls can be cancelled');
    const task = await cancelOwnerTask(services, key.userId, found.task.kind, found.task.id);
    sendSuccess(
      ctx,
      key.profile,
      viewOf(services, ctx, { kind: 'task', task, clientRequestId: found.clientRequestId }),
    );
  });

/** The call once it ended, or as it is when the wait ran out: read once, after the wake (or at once when it already ended). */
async function settledCall(
  services: GatewayServices,
  key: ApiKeyContext,
  call: PrivateCallRow,
  waiter: { done: Promise<CallEnded | undefined> } | undefined,
  replayed: boolean,
): Promise<PrivateCallRow> {
  if (ENDED_STATUSES.has(call.status) || !waiter) return call;
  // A replayed call was read before the wait began: read it once more now that the wait is on.
  const read = () => findOwnerPrivateCall(services.db, key.userId, call.id).then((c) => c ?? call);
  if (replayed) {
    const now = await read();
    if (ENDED_STATUSES.has(now.status)) return now;
  }
  // The job says how the call ended: nothing to read (a wait that ran out, or a reconnect, reads).
  const ended = await waiter.done;
  if (ended)
    return Object.assign({}, call, { status: ended.status, result: ended.result ?? null, error: ended.error ?? null });
  return read();
}
