// Control API for tasks (not counted in stats): GET/DELETE /_sim/tasks, GET /_sim/tasks/{id},
// POST /_sim/tasks/{id}/finish and POST /_sim/tasks/{id}/fail (body {code?, message?}).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody, sendJson } from '../http-io.js';
import { openAiError, sendOpenAiError, unknownRoute } from '../openai-errors.js';
import type { SimContext } from '../sim-context.js';
import { resultOrigin, resultUrls } from './result-files.js';
import type { TaskError, TaskKind, TaskProtocol, TaskRecord, TaskStatus } from './task-record.js';
import type { TaskStore } from './task-store.js';

export const TASKS_PATH = '/_sim/tasks';

/** A task as the simulator sees it, in its own vocabulary; times are epoch ms. */
export interface SimTaskView {
  id: string;
  protocol: TaskProtocol;
  kind: TaskKind;
  model: string;
  status: TaskStatus;
  progress: number;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  expiresAt: number | null;
  error: TaskError | null;
  polls: number;
  idempotencyKey: string | null;
  /** Where the results download from once succeeded. */
  resultUrls: string[];
}

export function taskView(task: TaskRecord, store: TaskStore, origin: string): SimTaskView {
  const state = store.state(task);
  return {
    id: task.id,
    protocol: task.protocol,
    kind: task.kind,
    model: task.model,
    status: state.status,
    progress: state.progress,
    createdAt: task.createdAt,
    updatedAt: state.updatedAt,
    finishedAt: state.finishedAt ?? null,
    expiresAt: state.expiresAt ?? null,
    error: state.error ?? null,
    polls: task.polls,
    idempotencyKey: task.idempotencyKey ?? null,
    resultUrls: state.status === 'succeeded' ? resultUrls(origin, task) : [],
  };
}

/** The error a forced failure carries: the body's code and message where given. */
async function forcedError(req: IncomingMessage): Promise<TaskError | undefined> {
  const body = await readJsonBody(req);
  if (!body.ok || typeof body.value !== 'object' || body.value === null) return undefined;
  const { code, message } = body.value as Record<string, unknown>;
  if (typeof code !== 'string' && typeof message !== 'string') return undefined;
  return {
    code: typeof code === 'string' ? code : 'sim_task_failed',
    message: typeof message === 'string' ? message : 'Failed through the simulator control API.',
  };
}

export async function handleTaskControl(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  sim: SimContext,
): Promise<void> {
  const origin = resultOrigin(req, sim);
  if (path === TASKS_PATH || path === `${TASKS_PATH}/`) {
    req.resume();
    if (req.method === 'GET')
      return sendJson(res, 200, { data: sim.tasks.list().map((task) => taskView(task, sim.tasks, origin)) });
    if (req.method === 'DELETE') {
      sim.tasks.clear();
      return void res.writeHead(204).end();
    }
    return unknownRoute(res, req.method, path);
  }
  const [id = '', action, ...rest] = path.slice(TASKS_PATH.length + 1).split('/');
  const task = sim.tasks.get(decodeURIComponent(id));
  const route = `${req.method} ${action ?? ''}`;
  if (rest.length > 0 || !['GET ', 'POST finish', 'POST fail'].includes(route)) {
    req.resume();
    return unknownRoute(res, req.method, path);
  }
  if (task === undefined) {
    req.resume();
    return sendOpenAiError(res, 404, openAiError(`no task ${id}`, 'invalid_request_error', null, 'task_not_found'));
  }
  if (route === 'POST finish') sim.tasks.force(task, 'succeeded');
  if (route === 'POST fail') sim.tasks.force(task, 'failed', await forcedError(req));
  else req.resume();
  sendJson(res, 200, taskView(task, sim.tasks, origin));
}
