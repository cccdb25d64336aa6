import type { CallError } from '../../shared/private/call-error.js';
import type { Context, Middleware } from 'koa';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import type { TaskKind } from '../../shared/db/schema.js';
import { GatewayError, isGatewayError, type ErrorCode } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { requestHash } from '../../shared/idempotency/idempotency-key.js';
import { privateCallSchema, privateLookupSchema, type PrivateCallRequest } from '../../shared/private/call-request.js';
import { callTags } from '../../shared/usage/tags.js';
import { parseOrThrow } from '../../shared/validation.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateAndCount, authenticateRequest } from '../http/credential.js';
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
import { chatCallAfter, firstWait } from './chat-wait.js';
import { findEarlierCall, taskBodyOf } from './replay-call.js';

/** Steps 1-3 with the key from the body (read and size-limited first): an `ak-` key, and only one. */
async function authenticateBody(
  ctx: Context,
  services: GatewayServices,
  authenticate: typeof authenticateRequest = authenticateRequest,
): Promise<{ key: ApiKeyContext; body: Record<string, unknown> }> {
  const body = await readJsonObject(ctx, services.config.http.bodyLimitBytes);
  const secret = typeof body.value.apiKey === 'string' && body.value.apiKey !== '' ? body.value.apiKey : undefined;
  const key = await authenticate(ctx, services, { secret, ip: ctx.ip, privateRoute: true });
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
 * How long a chat call's answer may wait before it answers the call's state: only a `standard_v1`
 * client's `wait_ms` (an early answer it asked for); otherwise, as `legacy_v1` clients always
 * get, the whole answer however long the upstream takes (undefined: no limit of our own).
 */
const earlyAnswerMs = (key: ApiKeyContext, req: PrivateCallRequest) =>
  key.profile === 'standard_v1' ? req.wait_ms : undefined;

/** A chat call that failed answers as the standard call would have: its status, code, Retry-After and limits. */
const callFailure = (error: CallError) =>
  new GatewayError(error.code as ErrorCode, error.status, error.message, {
    ...(error.retryAfter !== undefined && { retryAfter: error.retryAfter }),
    ...(error.headers !== undefined && { headers: error.headers }),
  });

/** The key's tags and the request's `X-Service-Tags`; a bad header answers naming it (the envelope has no `param`). */
function requestTags(ctx: Context, key: ApiKeyContext): string[] {
  try {
    return callTags(ctx.get('x-service-tags') || undefined, key.tags);
  } catch (err) {
    if (!isGatewayError(err) || !err.param) throw err;
    throw new GatewayError(err.code, err.status, `${err.param}: ${err.message}`, { param: err.param });
  }
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
      const tags = requestTags(ctx, key);
      const { apiKey: _key, wait_ms: _wait, ...identity } = authed.body;
      const hash = requestHash(identity);
      // Replay first: a known clientRequestId answers its call before anything that may have changed since.
      const earlier = await findEarlierCall(services, key, req, hash);
      const kind = earlier ? kindOfCall(earlier) : kindOf(services, req.model);
      if (kind === 'chat') {
        const streamed = req.stream === true && key.profile === 'standard_v1';
        // Parsed and step 4 once, before anything is stored; a replay needs neither.
        const chat = earlier ? undefined : await readChatCall(services, key, req);
        if (streamed) {
          if (earlier) return sendSuccess(ctx, key.profile, viewOf(services, ctx, earlier));
          return await streamPrivateChat(services, ctx, key, req, chat!, { hash, tags });
        }
        const limitMs = earlyAnswerMs(key, req);
        let first: ReturnType<typeof firstWait>;
        try {
          const accepted =
            earlier?.kind === 'chat'
              ? { call: earlier.call, replayed: true }
              : await acceptChatCall(
                  services,
                  ctx,
                  key,
                  req,
                  chat!,
                  { hash, tags },
                  {
                    beforeEnqueue: (id) => (first = firstWait(services, id, limitMs)),
                  },
                );
          const call = await chatCallAfter(services, key, accepted.call, first, limitMs, ctx.res);
          // A chat call refused when it ran (steps 5-6: balance, quota, limits) or failed upstream answers
          // as an error, as /v1/chat/completions would; getResult keeps showing its state.
          if (call.status === 'failed' && call.error) throw callFailure(call.error);
          return sendSuccess(ctx, key.profile, viewOf(services, ctx, { kind: 'chat', call }));
        } finally {
          first?.cancel();
        }
      }
      const accepted =
        earlier?.kind === 'task'
          ? { taskId: earlier.task.id, status: earlier.task.status, replayed: true }
          : await acceptNewTaskCall(services, ctx, key, req, kind, tags);
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

/** A new task call: its input validated as the standard call's, then its task created (replays were answered before). */
function acceptNewTaskCall(
  services: GatewayServices,
  ctx: Context,
  key: ApiKeyContext,
  req: PrivateCallRequest,
  kind: TaskKind,
  tags: string[],
) {
  const body = taskBodyOf(req);
  withinInput(() => TASK_ROUTES[kind].parse(body));
  return acceptTaskCall(services, ctx, key, req, kind, body, tags);
}

const kindOfCall = (found: FoundCall): 'chat' | TaskKind => (found.kind === 'chat' ? 'chat' : found.task.kind);

const logError = (services: GatewayServices) => (err: unknown) => services.log.error({ err }, 'unhandled error');

/**
 * getResult and cancel: the key from the body, counted against its rate limits like any other
 * gateway call (one request; the answer carries the limits), the call it names (a miss answers per
 * profile), then `act`.
 */
function onFoundCall(
  services: GatewayServices,
  act: (ctx: Context, key: ApiKeyContext, found: FoundCall) => Promise<void>,
): Middleware {
  const log = logError(services);
  return async (ctx) => {
    let key: ApiKeyContext | undefined;
    try {
      const authed = await authenticateBody(ctx, services, authenticateAndCount);
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
