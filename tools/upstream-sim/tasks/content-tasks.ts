// content-tasks: an asynchronous content-generation task API under any base path, e.g. /api/v3:
// POST {base}/contents/generations/tasks, GET and DELETE {base}/contents/generations/tasks/{id}.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody, sendJson } from '../http-io.js';
import type { SimContext } from '../sim-context.js';
import { parseContentTaskCreate, RESOLUTIONS } from './content-tasks-request.js';
import { resultOrigin, resultUrls } from './result-files.js';
import { bearerAuth, createTask, pollFails, type CreateAnswers } from './task-create.js';
import { unixSeconds, type TaskRecord, type TaskState } from './task-record.js';

const PROTOCOL = 'content-tasks';
const FPS = 24;

/** The provider's error body: {error: {code, message, param, type}}. */
function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  type: string,
  message: string,
  param = '',
  headers = {},
): void {
  sendJson(res, status, { error: { code, message, param, type } }, headers);
}

const answers: CreateAnswers = {
  created: (res, task) => sendJson(res, 200, { id: task.id }),
  invalid: (res, message, param) => sendError(res, 400, 'InvalidParameter', 'BadRequest', message, param),
  serverError: (res) =>
    sendError(
      res,
      500,
      'InternalServiceError',
      'InternalServerError',
      'The service encountered an unexpected internal error.',
    ),
  rateLimited: (res, seconds) =>
    sendError(
      res,
      429,
      'RateLimitExceeded',
      'TooManyRequests',
      'The request has exceeded the rate limit. Please try again later.',
      '',
      { 'retry-after': String(seconds) },
    ),
};

/** False (and answered 401) when the bearer key is missing or wrong. */
function authorized(req: IncomingMessage, res: ServerResponse, sim: SimContext): boolean {
  const auth = bearerAuth(req, sim.apiKey);
  if (auth === 'ok') return true;
  req.resume();
  const message =
    auth === 'missing' ? 'The API key is missing from the Authorization header.' : 'The API key is invalid.';
  sendError(res, 401, 'AuthenticationError', 'Unauthorized', message);
  return false;
}

function notFound(res: ServerResponse, id: string): void {
  sendError(res, 404, 'ResourceNotFound', 'NotFound', `The specified task ${id} is not found.`);
}

/** Video usage in the provider's token formula (width × height × fps × seconds / 1024) plus seconds. */
function usageOf(task: TaskRecord): object {
  if (task.kind === 'image') return { images: task.count };
  const duration = Number(task.echo.duration);
  const [width, height] = RESOLUTIONS[String(task.echo.resolution)] ?? [1280, 720];
  const tokens = Math.floor((width * height * FPS * duration) / 1024);
  return { completion_tokens: tokens, total_tokens: tokens, duration_seconds: duration };
}

export function contentTaskView(task: TaskRecord, state: TaskState, origin: string): object {
  const view: Record<string, unknown> = {
    id: task.id,
    model: task.model,
    status: state.status,
    created_at: unixSeconds(task.createdAt),
    updated_at: unixSeconds(state.updatedAt),
    progress: state.progress,
    ...task.echo,
  };
  if (state.status === 'succeeded') {
    const urls = resultUrls(origin, task);
    view.content = task.kind === 'video' ? { video_url: urls[0] } : { image_urls: urls };
    view.usage = usageOf(task);
  }
  if (state.error !== undefined) view.error = state.error;
  return view;
}

export async function createContentTask(req: IncomingMessage, res: ServerResponse, sim: SimContext): Promise<void> {
  sim.stats.countTask(PROTOCOL, 'taskCreateRequests');
  if (!authorized(req, res, sim)) return;
  const body = await readJsonBody(req);
  if (!body.ok) return answers.invalid(res, 'The request body is not valid JSON.', 'body');
  const parsed = parseContentTaskCreate(body.value);
  sim.stats.recordBody(parsed.ok ? parsed.request.model : undefined, body.value);
  if (!parsed.ok) return answers.invalid(res, parsed.message, parsed.param);
  createTask(req, res, sim, PROTOCOL, parsed.request, answers);
}

export async function getContentTask(
  req: IncomingMessage,
  res: ServerResponse,
  sim: SimContext,
  id: string,
): Promise<void> {
  sim.stats.countTask(PROTOCOL, 'taskPolls');
  req.resume();
  if (!authorized(req, res, sim)) return;
  const task = sim.tasks.get(id, PROTOCOL);
  if (task === undefined) return notFound(res, id);
  if (pollFails(task)) return answers.serverError(res);
  sendJson(res, 200, contentTaskView(task, sim.tasks.state(task), resultOrigin(req, sim)));
}

/** Cancels a queued or running task (it stays readable as cancelled); deletes a finished one. */
export async function deleteContentTask(
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
  sim.tasks.cancelOrRemove(task);
  sendJson(res, 200, {});
}
