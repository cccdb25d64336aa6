import Router from '@koa/router';
import type { Context } from 'koa';
import { randomBase62 } from '../../shared/ids.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import type { PrivateCallRow, TaskKind } from '../../shared/db/schema.js';
import { advancePrivateCall, findOwnerPrivateCall, findPrivateCallByClientId, insertPrivateCall, PRIVATE_ENDPOINT } from '../../shared/db/private-calls.js';
import { findUserTask } from '../../shared/db/tasks.js';
import { GatewayError, isGatewayError, type ErrorCode } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { IDEMPOTENCY_WINDOW_MS, requestHash } from '../../shared/idempotency/idempotency-key.js';
import { onceByKey } from '../../shared/idempotency/once.js';
import { jobId } from '../../shared/jobs/catalog.js';
import { privateCallSchema, privateLookupSchema, type PrivateCallRequest } from '../../shared/private/call-request.js';
import { ENDED_STATUSES, privateCallView } from '../../shared/private/call-view.js';
import { chatRequestSchema } from '../../shared/protocols/openai/chat-request.js';
import { planModels } from '../../shared/routing/plan.js';
import { callTags } from '../../shared/usage/tags.js';
import { parseOrThrow } from '../../shared/validation.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateRequest } from '../openai/credential.js';
import { imageTaskRoute } from '../images/create-image-task.js';
import { createRouteTask, type TaskRoute } from '../videos/accept-task.js';
import { videoRoute } from '../videos/create-video-task.js';
import { baseUrl, viewWithLinks } from '../videos/task-responses.js';
import { cancelOwnerTask } from '../videos/cancel-task.js';
import { sendFailure, sendMiss, sendSuccess } from './envelope.js';
import { streamPrivateChat } from './stream-call.js';

const DEFAULT_CHAT_WAIT_MS = 30_000;
const TASK_ROUTES: Record<TaskKind, TaskRoute<{ model: string }>> = { video: videoRoute as TaskRoute<{ model: string }>, image: imageTaskRoute as TaskRoute<{ model: string }> };

/** The standard call's schema errors, named where the caller wrote the field (`input.messages`). */
function withinInput<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (isGatewayError(err) && err.param && !err.param.startsWith('input')) throw new GatewayError(err.code, err.status, err.message.replace(`'${err.param}'`, `'input.${err.param}'`), { param: `input.${err.param}` });
    throw err;
  }
}

/** Steps 1-3 with the key from the body (read and size-limited first): an `ak-` key, and only one. */
async function authenticateBody(ctx: Context, services: GatewayServices): Promise<{ key: ApiKeyContext; body: Record<string, unknown> }> {
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
 * The private protocol under `/server` (README, "Private protocol"): the key in the body, every
 * creating call a durable record keyed by the key's `clientRequestId` (24 hours; a replay answers
 * the first call's state and never runs or charges it again), chat calls run as jobs the API waits
 * for through Redis, task calls as the standard tasks.
 */
export function privateRouter(services: GatewayServices): Router {
  const router = new Router({ prefix: '/server/v1' });
  const log = (err: unknown) => services.log.error({ err }, 'unhandled error');

  router.post('/call', async (ctx) => {
    let key: ApiKeyContext | undefined;
    try {
      const authed = await authenticateBody(ctx, services);
      key = authed.key;
      const req = parseOrThrow(privateCallSchema, authed.body);
      const { apiKey: _key, wait_ms: _wait, ...identity } = authed.body;
      const hash = requestHash(identity);
      const kind = kindOf(services, req.model);
      if (kind === 'chat') {
        const body = withinInput(() => parseOrThrow(chatRequestSchema, Object.assign({}, req.input, { model: req.model, stream: req.stream === true }))) as Record<string, unknown>;
        delete body.stream_options;
        await planModels(services.routing, key, req.model, 'chat/completions'); // step 4, before anything is stored
        if (req.stream === true && key.profile === 'standard_v1') return await streamPrivateChat(services, ctx, key, req, body, hash);
        // legacy_v1 streams are answered whole, at the end: the call runs as any other.
        body.stream = false;
        const { call } = await acceptCall(services, ctx, key, req, 'chat', body, hash);
        const view = await viewAfterWait(services, ctx, key, call, req.wait_ms ?? DEFAULT_CHAT_WAIT_MS);
        // A chat call refused when it ran (steps 5-6: balance, quota, limits) or failed upstream answers
        // as an error, as /v1/chat/completions would; getResult keeps showing its state.
        const failed = (await findOwnerPrivateCall(services.db, key.userId, call.id))?.error;
        if (view.status === 'failed' && failed) throw new GatewayError(failed.code as ErrorCode, failed.status, failed.message);
        return sendSuccess(ctx, key.profile, view);
      }
      const route = TASK_ROUTES[kind];
      const body = Object.assign({}, req.input, { model: req.model });
      withinInput(() => route.parse(body));
      const { call } = await acceptCall(services, ctx, key, req, kind, body, hash);
      sendSuccess(ctx, key.profile, await viewAfterWait(services, ctx, key, call, req.wait_ms ?? 0));
    } catch (err) {
      sendFailure(ctx, key?.profile, err, log);
    }
  });

  router.post('/getResult', async (ctx) => {
    let key: ApiKeyContext | undefined;
    try {
      const authed = await authenticateBody(ctx, services);
      key = authed.key;
      const call = await lookup(services, key, authed.body);
      if (!call) return sendMiss(ctx, key.profile);
      sendSuccess(ctx, key.profile, await currentView(services, ctx, key, call));
    } catch (err) {
      sendFailure(ctx, key?.profile, err, log);
    }
  });

  router.post('/cancel', async (ctx) => {
    let key: ApiKeyContext | undefined;
    try {
      const authed = await authenticateBody(ctx, services);
      key = authed.key;
      const call = await lookup(services, key, authed.body);
      if (!call) return sendMiss(ctx, key.profile);
      if (call.kind === 'chat' || !call.task_id) throw new GatewayError('conflict', 409, 'only video and image calls can be cancelled');
      await cancelOwnerTask(services, key.userId, call.kind, call.task_id);
      sendSuccess(ctx, key.profile, await currentView(services, ctx, key, call));
    } catch (err) {
      sendFailure(ctx, key?.profile, err, log);
    }
  });
  return router;
}

/** A call of this key by `clientRequestId`, or of this key's owner by `taskId`; another owner's is a miss. */
async function lookup(services: GatewayServices, key: ApiKeyContext, body: Record<string, unknown>): Promise<PrivateCallRow | undefined> {
  const req = parseOrThrow(privateLookupSchema, body);
  if (req.taskId !== undefined) return findOwnerPrivateCall(services.db, key.userId, req.taskId);
  return findPrivateCallByClientId(services.db, key.userId, key.id, req.clientRequestId!, services.clock.now());
}

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

/**
 * Waits up to `waitMs` for the call to end: woken through Redis when its job ends (chat), read once
 * more at the end of the wait (tasks: their workers do not announce each end).
 */
async function viewAfterWait(services: GatewayServices, ctx: Context, key: ApiKeyContext, call: PrivateCallRow, waitMs: number) {
  if (waitMs <= 0 || ENDED_STATUSES.has(call.status)) return currentView(services, ctx, key, call);
  const waiter = services.calls.until(call.id, waitMs);
  try {
    const now = await currentView(services, ctx, key, call);
    if (ENDED_STATUSES.has(now.status)) return now;
    await waiter.done;
    return await currentView(services, ctx, key, call);
  } finally {
    waiter.cancel();
  }
}

