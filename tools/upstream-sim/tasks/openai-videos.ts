// openai-videos: OpenAI's Videos API under any base path (e.g. /v1): POST {base}/videos,
// GET {base}/videos, GET and DELETE {base}/videos/{id}, GET {base}/videos/{id}/content.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../http-io.js';
import { openAiError, rateLimited, sendOpenAiError, serverError, unauthorized } from '../openai-errors.js';
import type { SimContext } from '../sim-context.js';
import { parseVideoCreate } from './openai-videos-request.js';
import { sendResult } from './result-files.js';
import { createTask, bearerAuth, pollFails, type CreateAnswers } from './task-create.js';
import { unixSeconds, type TaskRecord, type TaskStatus } from './task-record.js';

const PROTOCOL = 'openai-videos';
const WIRE_STATUS: Record<TaskStatus, string> = {
  queued: 'queued',
  running: 'in_progress',
  succeeded: 'completed',
  failed: 'failed',
  // Not reachable through this protocol (DELETE removes), only through the control API's view.
  cancelled: 'failed',
};

export function videoView(task: TaskRecord, sim: SimContext): object {
  const state = sim.tasks.state(task);
  const cancelled =
    state.status === 'cancelled' ? { code: 'cancelled', message: 'The video job was cancelled.' } : undefined;
  return {
    id: task.id,
    object: 'video',
    created_at: unixSeconds(task.createdAt),
    completed_at: state.status === 'succeeded' ? unixSeconds(state.updatedAt) : null,
    error: state.error ?? cancelled ?? null,
    expires_at: state.expiresAt === undefined ? null : unixSeconds(state.expiresAt),
    model: task.model,
    progress: state.progress,
    prompt: task.echo.prompt ?? null,
    remixed_from_video_id: null,
    seconds: task.echo.seconds,
    size: task.echo.size,
    status: WIRE_STATUS[state.status],
  };
}

function answersFor(sim: SimContext): CreateAnswers {
  return {
    created: (res, task) => sendJson(res, 200, videoView(task, sim)),
    invalid: (res, message, param) => sendOpenAiError(res, 400, openAiError(message, 'invalid_request_error', param)),
    serverError,
    rateLimited,
  };
}

/** False (and answered 401) when the bearer key is missing or wrong. */
function authorized(req: IncomingMessage, res: ServerResponse, sim: SimContext): boolean {
  const auth = bearerAuth(req, sim.apiKey);
  if (auth === 'ok') return true;
  req.resume();
  unauthorized(res, auth === 'wrong');
  return false;
}

function notFound(res: ServerResponse, id: string): void {
  sendOpenAiError(
    res,
    404,
    openAiError(`Video with id '${id}' not found.`, 'invalid_request_error', null, 'video_not_found'),
  );
}

export async function createVideo(req: IncomingMessage, res: ServerResponse, sim: SimContext): Promise<void> {
  sim.stats.countTask(PROTOCOL, 'taskCreateRequests');
  if (!authorized(req, res, sim)) return;
  const parsed = await parseVideoCreate(req);
  if (!parsed.ok) {
    return sendOpenAiError(
      res,
      parsed.status,
      openAiError(parsed.message, 'invalid_request_error', parsed.param, parsed.code),
    );
  }
  sim.stats.recordBody(parsed.request.model, parsed.fields);
  createTask(req, res, sim, PROTOCOL, parsed.request, answersFor(sim));
}

export async function getVideo(req: IncomingMessage, res: ServerResponse, sim: SimContext, id: string): Promise<void> {
  sim.stats.countTask(PROTOCOL, 'taskPolls');
  req.resume();
  if (!authorized(req, res, sim)) return;
  const task = sim.tasks.get(id, PROTOCOL);
  if (task === undefined) return notFound(res, id);
  if (pollFails(task)) return serverError(res);
  sendJson(res, 200, videoView(task, sim));
}

/** Newest first by default, cursor `after` = a video id, as OpenAI's list pages. */
export async function listVideos(req: IncomingMessage, res: ServerResponse, sim: SimContext): Promise<void> {
  req.resume();
  if (!authorized(req, res, sim)) return;
  const query = new URL(req.url ?? '/', 'http://sim').searchParams;
  const limit = Math.min(100, Math.max(1, Number(query.get('limit') ?? 20) || 20));
  let tasks = sim.tasks.list().filter((task) => task.protocol === PROTOCOL);
  if (query.get('order') !== 'asc') tasks = tasks.reverse();
  const after = query.get('after');
  if (after !== null) tasks = tasks.slice(tasks.findIndex((task) => task.id === after) + 1);
  const data = tasks.slice(0, limit).map((task) => videoView(task, sim)) as { id: string }[];
  sendJson(res, 200, {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: tasks.length > limit,
  });
}

/** Deletes the video in any state; a queued or in-progress job stops with it. */
export async function deleteVideo(
  req: IncomingMessage,
  res: ServerResponse,
  sim: SimContext,
  id: string,
): Promise<void> {
  sim.stats.countTask(PROTOCOL, 'taskCancels');
  req.resume();
  if (!authorized(req, res, sim)) return;
  const task = sim.tasks.get(id, PROTOCOL);
  if (task === undefined) return notFound(res, id);
  sim.tasks.remove(task);
  sendJson(res, 200, { id: task.id, object: 'video.deleted', deleted: true });
}

export async function downloadVideo(
  req: IncomingMessage,
  res: ServerResponse,
  sim: SimContext,
  id: string,
): Promise<void> {
  req.resume();
  if (!authorized(req, res, sim)) return;
  const task = sim.tasks.get(id, PROTOCOL);
  if (task === undefined) return notFound(res, id);
  const variant = new URL(req.url ?? '/', 'http://sim').searchParams.get('variant') ?? 'video';
  if (variant !== 'video') {
    const message = `Variant '${variant}' is not available from the simulator; only 'video' is.`;
    return sendOpenAiError(res, 400, openAiError(message, 'invalid_request_error', 'variant', 'invalid_value'));
  }
  const state = sim.tasks.state(task);
  if (state.status !== 'succeeded') {
    const message = `Video '${id}' is not ready: its status is ${WIRE_STATUS[state.status]}.`;
    return sendOpenAiError(res, 404, openAiError(message, 'invalid_request_error', null, 'video_not_ready'));
  }
  if (sim.tasks.now() >= (state.expiresAt ?? 0)) {
    return sendOpenAiError(
      res,
      404,
      openAiError(`The content of video '${id}' has expired.`, 'invalid_request_error', null, 'video_expired'),
    );
  }
  await sendResult(req, res, task, task.id, sim);
}
