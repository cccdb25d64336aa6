import type { GatewayServices } from '../../shared/gateway/services.js';
import type { TaskRow, TaskStage } from '../../shared/db/schema.js';
import { endTask } from '../../shared/tasks/end-task.js';
import { jobId, type JobName } from '../../shared/jobs/catalog.js';
import { taskProviderFor } from '../../shared/providers/tasks/index.js';
import type { TaskProvider } from '../../shared/providers/tasks/task-provider.js';
import type { Upstream } from '../../shared/providers/registry.js';

/** Everything a task job needs; the same services the API has. */
export type TaskJobServices = GatewayServices;

export function providerOf(s: TaskJobServices, task: TaskRow): { upstream: Upstream; provider: TaskProvider } {
  // The account the routing plan chose at creation; an account since removed from the catalog falls to the first.
  const accounts = s.upstreams.accounts(task.provider);
  const upstream = accounts.find((a) => a.account === task.upstream_account) ?? accounts[0]!;
  return { upstream, provider: taskProviderFor(upstream.provider.protocol) };
}

/** The job that carries a task on from each stage (`done` has none). */
export const NEXT_JOB: Partial<Record<TaskStage, JobName>> = {
  submit: 'task-submit',
  poll: 'task-poll',
  mirror: 'task-mirror',
  settle: 'task-settle',
};

/**
 * Enqueues the job of the task's current stage under its fixed id (a no-op while that job exists).
 * A job that finds its task already past its own stage calls it: a run killed between moving the
 * task on and enqueueing the next job leaves no next job, and its retry is what notices, within
 * seconds, instead of the reconciler after TASK_RECONCILE_AFTER_MS.
 */
export async function enqueueStageJob(
  s: TaskJobServices,
  task: Pick<TaskRow, 'id' | 'stage' | 'polls'>,
): Promise<void> {
  const name = NEXT_JOB[task.stage];
  if (!name) return;
  await s.jobs.enqueue(
    name,
    { taskId: task.id },
    { jobId: jobId(name, task.id, name === 'task-poll' ? task.polls : 0) },
  );
}

/** Ends a task that cost nothing (failed, cancelled upstream, expired) and hands it to settle. */
export async function endUnsuccessfully(
  s: TaskJobServices,
  task: TaskRow,
  from: readonly TaskStage[],
  status: 'failed' | 'cancelled' | 'expired',
  error: { code: string; message: string } | undefined,
): Promise<void> {
  const moved = await endTask(s.db, task.id, from, {
    status,
    stage: 'settle',
    finished_at: new Date(s.clock.now()),
    ...(error ? { error_code: error.code, error_message: error.message } : {}),
  });
  if (moved) await s.jobs.enqueue('task-settle', { taskId: task.id }, { jobId: jobId('task-settle', task.id) });
}

/**
 * Polls start after `firstPollMs` (TASK_FIRST_POLL_MS, 2 s by default) and back off to 30 s, with
 * ±20 % jitter so many tasks never poll in step.
 */
export function nextPollDelayMs(polls: number, firstPollMs: number): number {
  const base = Math.min(firstPollMs * 1.5 ** polls, 30_000);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Whether this run is the job's last attempt (then a failure is final, not retried). */
export function lastAttempt(job: { attemptsMade: number; opts: { attempts?: number } }): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}
