// The create path both task protocols share: auth, idempotent replay, sim directives, submit faults.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BehaviourError, parseDirectives, type ResolvedBehaviour } from '../behaviour.js';
import { ResponseClock } from '../http-io.js';
import type { SimContext } from '../sim-context.js';
import type { TaskKind, TaskProtocol, TaskRecord } from './task-record.js';

export type AuthResult = 'ok' | 'missing' | 'wrong';

export function bearerAuth(req: IncomingMessage, apiKey: string | undefined): AuthResult {
  if (apiKey === undefined) return 'ok';
  const header = req.headers.authorization;
  if (header === undefined) return 'missing';
  return header === `Bearer ${apiKey}` ? 'ok' : 'wrong';
}

/** How one protocol words each answer of the create path. */
export interface CreateAnswers {
  created(res: ServerResponse, task: TaskRecord): void;
  invalid(res: ServerResponse, message: string, param: string): void;
  serverError(res: ServerResponse): void;
  rateLimited(res: ServerResponse, retryAfterSeconds: number): void;
}

export interface TaskRequest {
  model: string;
  kind: TaskKind;
  count: number;
  echo: TaskRecord['echo'];
  /** Where `[[sim:...]]` directives are read from (the prompt / the text parts). */
  text: string;
  /** Which form field the text came from, named in a bad-directive 400. */
  textParam: string;
}

function idempotencyKey(req: IncomingMessage): string | undefined {
  const key = req.headers['idempotency-key'];
  return typeof key === 'string' && key !== '' ? key : undefined;
}

/**
 * Creates the task, or answers the one created before under the same Idempotency-Key. A replay
 * skips the submit faults: the first request decided them, and the point of the key is that a
 * retry after a lost answer (taskFault=hang, a client timeout) gets the task that was made.
 */
export function createTask(
  req: IncomingMessage,
  res: ServerResponse,
  sim: SimContext,
  protocol: TaskProtocol,
  request: TaskRequest,
  answers: CreateAnswers,
): void {
  const key = idempotencyKey(req);
  const existing = key === undefined ? undefined : sim.tasks.findByKey(protocol, key);
  if (existing !== undefined) return answers.created(res, existing);
  let behaviour: ResolvedBehaviour;
  try {
    behaviour = sim.behaviours.resolve(request.model, parseDirectives(request.text));
  } catch (error) {
    if (error instanceof BehaviourError) return answers.invalid(res, error.message, request.textParam);
    throw error;
  }
  const clock = new ResponseClock(res);
  if (behaviour.taskFault === 'submit500') return clock.after(behaviour.latencyMs, () => answers.serverError(res));
  if (behaviour.taskFault === 'submit429') {
    return clock.after(behaviour.latencyMs, () => answers.rateLimited(res, behaviour.retryAfterSeconds));
  }
  const task = sim.tasks.create({ ...request, protocol, idempotencyKey: key, behaviour });
  sim.stats.countTask(protocol, 'taskCreates');
  if (behaviour.taskFault === 'hang') return; // made, never answered; released when the client leaves
  clock.after(behaviour.latencyMs, () => answers.created(res, task));
}

/** Counts a GET of a task and says whether it is one that pollError500 fails. */
export function pollFails(task: TaskRecord): boolean {
  task.polls++;
  return task.plan.pollErrorEvery > 0 && task.polls % task.plan.pollErrorEvery === 0;
}
