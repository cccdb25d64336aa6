import { UnrecoverableError, type Job } from 'bullmq';
import { sql } from 'kysely';
import { advanceTask, findTask } from '../../shared/db/tasks.js';
import { jobId } from '../../shared/jobs/catalog.js';
import { UpstreamTaskError } from '../../shared/providers/tasks/task-provider.js';
import {
  endUnsuccessfully,
  enqueueStageJob,
  lastAttempt,
  nextPollDelayMs,
  providerOf,
  type TaskJobServices,
} from './task-steps.js';

/**
 * Creates the upstream task. The gateway's task id is the upstream's Idempotency-Key, so a retry
 * after a crash (even one between the upstream's answer and our write) finds the same upstream task.
 */
export async function submitTask(s: TaskJobServices, job: Job<{ taskId: string }>): Promise<string> {
  const task = await findTask(s.db, job.data.taskId);
  if (task && task.stage !== 'submit') {
    await enqueueStageJob(s, task);
    return 'nothing to do';
  }
  if (!task) return 'nothing to do';
  const { upstream, provider } = providerOf(s, task);
  await s.db
    .updateTable('tasks')
    .set({ submit_attempts: sql`submit_attempts + 1` })
    .where('id', '=', task.id)
    .execute();
  let upstreamId: string;
  try {
    ({ upstreamId } = await provider.create(upstream, {
      id: task.id,
      kind: task.kind,
      upstreamModel: task.upstream_model,
      request: task.request,
    }));
  } catch (err) {
    const retryable = !(err instanceof UpstreamTaskError) || err.retryable;
    if (retryable && !lastAttempt(job)) throw err;
    const status = err instanceof UpstreamTaskError ? err.status : 0;
    await endUnsuccessfully(s, task, ['submit'], 'failed', {
      code: 'upstream_rejected',
      message: `the provider did not accept the task (status ${status})`,
    });
    throw new UnrecoverableError((err as Error).message);
  }
  const moved = await advanceTask(s.db, task.id, ['submit'], {
    upstream_id: upstreamId,
    stage: 'poll',
    started_at: new Date(s.clock.now()),
  });
  if (!moved) {
    // Either cancelled while we were submitting, or another run of this job (re-enqueued after a
    // Redis loss, or a stalled job run again) recorded the same upstream task first. Only an upstream
    // task the row does not point at is ours to undo; cancelling the recorded one would kill the task.
    const current = await findTask(s.db, task.id);
    if (current?.upstream_id === upstreamId) return 'submitted by another run';
    await provider.cancel(upstream, upstreamId).catch(() => {});
    return 'cancelled meanwhile';
  }
  await s.jobs.enqueue(
    'task-poll',
    { taskId: task.id },
    { jobId: jobId('task-poll', task.id, 0), delay: nextPollDelayMs(0, s.config.tasks.firstPollMs) },
  );
  return 'submitted';
}
