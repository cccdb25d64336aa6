import type { RouteChoice } from '../routing/plan.js';
import type { CatalogModel, Endpoint } from '../catalog/index.js';
import type { TaskKind } from '../db/schema.js';
import { insertTask, type NewTask } from '../db/tasks.js';
import { admit } from '../gateway/pipeline.js';
import type { GatewayServices } from '../gateway/services.js';
import { IDEMPOTENCY_WINDOW_MS } from '../idempotency/idempotency-key.js';
import { findReplay, type IdempotencyScope, type StoredResult } from '../idempotency/replay.js';
import { randomBase62 } from '../ids.js';
import { jobId } from '../jobs/catalog.js';
import type { JobQueues } from '../jobs/queues.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import { jobTraceCarrier } from '../telemetry/spans.js';
import { taskView } from './task-view.js';

export interface CreateTaskInput {
  kind: TaskKind;
  key: ApiKeyContext;
  model: CatalogModel;
  /** The upstream route the routing plan chose for it (health and weights considered). */
  route: RouteChoice;
  /**
   * The request the upstream is sent (validated, defaults filled in: duration, resolution, n, size),
   * made once the call is admitted: it may fetch images, which a call that may not run must not.
   */
  request: () => Promise<Record<string, unknown>>;
  requestId: string;
  tags: string[];
  /** The key's scope and the request's hash, stored with the task (the caller looked for a replay first). */
  idempotency: { scope: IdempotencyScope; hash: Buffer } | undefined;
  /** The priced cost (after discount), reserved now and charged on success. */
  cost: number;
}

export interface CreatedTask extends StoredResult {
  replayed: boolean;
}

const ID_PREFIX: Record<TaskKind, string> = { video: 'video_', image: 'imgtask_' };
export const TASK_ENDPOINT: Record<TaskKind, Endpoint> = { video: 'videos', image: 'images/tasks' };
const RESERVATION_SLACK_MS = 60 * 60 * 1000;

/**
 * Accepts a creating call as a job: reserves the cost, stores the task (and its idempotency key's
 * result) in one statement, and hands it to the submit queue. Answers at once; the workers do the
 * rest. The caller has already answered a known key's replay (task-route.ts), before routing.
 */
export async function createTask(
  services: GatewayServices,
  queues: JobQueues,
  input: CreateTaskInput,
): Promise<CreatedTask> {
  return accept(services, queues, input, services.clock.now());
}

async function accept(
  services: GatewayServices,
  queues: JobQueues,
  input: CreateTaskInput,
  now: number,
): Promise<CreatedTask> {
  const { key } = input;
  const id = `${ID_PREFIX[input.kind]}${Date.now().toString(36)}${randomBase62(16)}`;
  const deadlineMs = services.config.tasks.deadlineMs;
  const admitted = await admit(services, key, id, input.cost, 0, deadlineMs + RESERVATION_SLACK_MS);
  try {
    let request: Record<string, unknown>;
    try {
      request = await input.request();
    } catch (err) {
      await release(services, key, id, now);
      throw err;
    }
    return await store(services, queues, input, request, now, id, deadlineMs);
  } finally {
    // The creation held a concurrency slot; the hours the task may run upstream do not.
    await services.admissions.releaseLeases(admitted, id).catch(() => undefined);
  }
}

/** Gives a reservation back whole (nothing was created). */
function release(services: GatewayServices, key: ApiKeyContext, id: string, now: number): Promise<number> {
  return services.admissions.finish({
    owner: { userId: key.userId, keyId: key.id },
    callId: id,
    now,
    cost: 0,
    admitted: undefined,
    actualTokens: 0,
    record: undefined,
  });
}

async function store(
  services: GatewayServices,
  queues: JobQueues,
  input: CreateTaskInput,
  request: Record<string, unknown>,
  now: number,
  id: string,
  deadlineMs: number,
): Promise<CreatedTask> {
  const { key, model, idempotency } = input;
  const endpoint = TASK_ENDPOINT[input.kind];
  const route = input.route;
  const task: NewTask = {
    id,
    kind: input.kind,
    user_id: key.userId,
    api_key_id: key.id,
    request_id: input.requestId,
    model: model.id,
    provider: route.upstream.provider.id,
    upstream_model: route.upstreamModel,
    upstream_account: route.upstream.account,
    status: 'queued',
    stage: 'submit',
    request,
    upstream_id: null,
    progress: null,
    provider_url: null,
    provider_urls: null,
    stored_keys: null,
    result_size: null,
    error_code: null,
    error_message: null,
    reserved_micro_usd: input.cost,
    charged_micro_usd: 0,
    usage: null,
    tags: input.tags,
    cancel_requested: false,
    submit_attempts: 0,
    polls: 0,
    created_at: new Date(now).toISOString(),
    updated_at: new Date(now).toISOString(),
    started_at: null,
    finished_at: null,
    deadline_at: new Date(now + deadlineMs).toISOString(),
    // Kept for a submit the reconciler enqueues again: it links to this request as the first did.
    trace_context: jobTraceCarrier() ?? null,
  };
  const body = taskView({
    ...task,
    request: task.request,
    usage: null,
    created_at: new Date(now),
    updated_at: new Date(now),
    deadline_at: new Date(now + deadlineMs),
  });
  const idem = idempotency
    ? {
        key: idempotency.scope.key,
        endpoint,
        requestHash: idempotency.hash,
        responseStatus: 200,
        responseBody: body,
        now: new Date(now),
        expiresAt: new Date(now + IDEMPOTENCY_WINDOW_MS),
      }
    : undefined;

  let created: boolean;
  try {
    created = await insertTask(services.db, task, idem);
  } catch (err) {
    await release(services, key, id, now);
    throw err;
  }
  if (!created) {
    // A concurrent duplicate won: give this reservation back and answer with its result.
    await release(services, key, id, now);
    const replay = idempotency && (await findReplay(services.db, idempotency.scope, idempotency.hash, now));
    if (!replay) throw new Error(`task ${id} was not inserted and its idempotency key has no stored result`);
    return { ...replay, replayed: true };
  }
  // If Redis is away the task waits in Postgres; the reconciler enqueues it when Redis is back.
  await queues.enqueue('task-submit', { taskId: id }, { jobId: jobId('task-submit', id) }).catch((err: Error) => {
    services.log.warn({ err: err.message, taskId: id }, 'submit not enqueued; the reconciler will');
  });
  return { status: 200, body, replayed: false };
}
