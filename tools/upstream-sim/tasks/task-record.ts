// One simulated task and its timeline. State is computed from timestamps on every read, so a
// thousand idle tasks cost a thousand small objects and no timers.

export const TASK_PROTOCOLS = ['content-tasks', 'openai-videos'] as const;
export type TaskProtocol = (typeof TASK_PROTOCOLS)[number];

/** The simulator's own status vocabulary; each protocol maps it onto its wire values. */
export type TaskStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export type TaskKind = 'video' | 'image';

export interface TaskError {
  code: string;
  message: string;
}

/** What the behaviour decided when the task was created; later setting changes leave it alone. */
export interface TaskPlan {
  queuedMs: number;
  runMs: number;
  fail: boolean;
  /** 0 unless taskFault was pollError500. */
  pollErrorEvery: number;
  progressSteps: number;
  resultBytes: number;
  resultUrlTtlMs: number;
}

export interface TaskRecord {
  readonly id: string;
  readonly protocol: TaskProtocol;
  readonly kind: TaskKind;
  readonly model: string;
  /** Images to produce (1 for videos). */
  readonly count: number;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly plan: TaskPlan;
  /** Request fields the protocol echoes back (duration, resolution, prompt, size...). */
  readonly echo: Readonly<Record<string, string | number | boolean | null>>;
  readonly idempotencyKey: string | undefined;
  polls: number;
  cancelledAt?: number;
  /** A state forced through the control API; it replaces the natural timeline from `at` on. */
  forced?: { status: 'succeeded' | 'failed'; at: number; error?: TaskError };
  removed: boolean;
}

export interface TaskState {
  status: TaskStatus;
  /** 0–100. */
  progress: number;
  /** Epoch ms of the last status change. */
  updatedAt: number;
  /** Epoch ms the task reached a terminal state, when it has. */
  finishedAt?: number;
  /** Epoch ms the results stop being downloadable (succeeded tasks only). */
  expiresAt?: number;
  error?: TaskError;
}

export const SIM_FAILURE: TaskError = {
  code: 'sim_task_failed',
  message: 'The simulated generation failed (taskFault=fail).',
};

function succeeded(task: TaskRecord, at: number): TaskState {
  return {
    status: 'succeeded',
    progress: 100,
    updatedAt: at,
    finishedAt: at,
    expiresAt: at + task.plan.resultUrlTtlMs,
  };
}

function failed(at: number, progress: number, error: TaskError): TaskState {
  return { status: 'failed', progress, updatedAt: at, finishedAt: at, error };
}

/** Where the natural timeline stands at `now` (no cancel, no forcing). */
function naturalState(task: TaskRecord, now: number): TaskState {
  const startedAt = task.createdAt + task.plan.queuedMs;
  const endsAt = startedAt + task.plan.runMs;
  if (now < startedAt) return { status: 'queued', progress: 0, updatedAt: task.createdAt };
  if (now < endsAt) {
    const steps = task.plan.progressSteps;
    const step = Math.floor(((now - startedAt) / task.plan.runMs) * steps);
    return { status: 'running', progress: Math.floor((step * 100) / steps), updatedAt: startedAt };
  }
  return task.plan.fail ? failed(endsAt, 0, SIM_FAILURE) : succeeded(task, endsAt);
}

export function taskState(task: TaskRecord, now: number): TaskState {
  const { forced, cancelledAt } = task;
  if (forced !== undefined && now >= forced.at) {
    return forced.status === 'succeeded'
      ? succeeded(task, forced.at)
      : failed(forced.at, 0, forced.error ?? SIM_FAILURE);
  }
  if (cancelledAt !== undefined && now >= cancelledAt) {
    return {
      status: 'cancelled',
      progress: naturalState(task, cancelledAt).progress,
      updatedAt: cancelledAt,
      finishedAt: cancelledAt,
    };
  }
  return naturalState(task, now);
}

export function isTerminal(status: TaskStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'cancelled';
}

/** Whole seconds, as both protocols put timestamps on the wire. */
export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);
