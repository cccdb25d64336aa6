import type { Job } from 'bullmq';
import { advanceTask, findTask } from '../../shared/db/tasks.js';
import { jobId } from '../../shared/jobs/catalog.js';
import type { TaskSnapshot } from '../../shared/providers/tasks/task-provider.js';
import { endUnsuccessfully, enqueueStageJob, nextPollDelayMs, providerOf, type TaskJobServices } from './task-steps.js';

/**
 * One look at the upstream task, then the next poll is scheduled (a delayed job, backing off). A
 * failed look is not an error of the job: the chain goes on until the task's deadline, after which
 * it ends `expired` and costs nothing.
 */
export async function pollTask(s: TaskJobServices, job: Job<{ taskId: string }>): Promise<string> {
  const task = await findTask(s.db, job.data.taskId);
  if (!task) return 'nothing to do';
  if (task.stage !== 'poll' && task.stage !== 'submit') {
    await enqueueStageJob(s, task);
    return 'nothing to do';
  }
  if (task.stage !== 'poll' || !task.upstream_id) return 'nothing to do';
  const { upstream, provider } = providerOf(s, task);
  if (s.clock.now() >= task.deadline_at.getTime()) {
    await provider.cancel(upstream, task.upstream_id).catch(() => {});
    await endUnsuccessfully(s, task, ['poll'], 'expired', {
      code: 'task_expired',
      message: 'the task did not finish before its deadline',
    });
    return 'expired';
  }
  let snapshot: TaskSnapshot | undefined | 'unreachable';
  try {
    snapshot = await provider.get(upstream, task.upstream_id);
  } catch (err) {
    s.log.warn({ taskId: task.id, err: (err as Error).message }, 'poll failed; polling again later');
    snapshot = 'unreachable';
  }
  if (snapshot === undefined) {
    await endUnsuccessfully(s, task, ['poll'], 'failed', {
      code: 'upstream_task_lost',
      message: 'the provider no longer knows this task',
    });
    return 'lost';
  }
  if (snapshot !== 'unreachable') {
    if (snapshot.status === 'succeeded') {
      const moved = await advanceTask(s.db, task.id, ['poll'], {
        stage: 'mirror',
        status: 'running',
        progress: 100,
        provider_url: snapshot.resultUrls[0] ?? null,
        provider_urls: snapshot.resultUrls,
        usage: snapshot.usage ? JSON.stringify(snapshot.usage) : null,
      });
      if (moved) await s.jobs.enqueue('task-mirror', { taskId: task.id }, { jobId: jobId('task-mirror', task.id) });
      return 'succeeded';
    }
    if (snapshot.status === 'failed' || snapshot.status === 'cancelled') {
      const error = snapshot.error ?? { code: 'upstream_failed', message: 'the provider could not complete the task' };
      await endUnsuccessfully(s, task, ['poll'], snapshot.status, snapshot.status === 'failed' ? error : undefined);
      return snapshot.status;
    }
  }
  const polls = task.polls + 1;
  const running = snapshot !== 'unreachable' && snapshot.status === 'running';
  const moved = await advanceTask(s.db, task.id, ['poll'], {
    polls,
    ...(running ? { status: 'running' } : {}),
    ...(snapshot !== 'unreachable' && snapshot.progress !== undefined
      ? { progress: Math.max(0, Math.min(100, Math.round(snapshot.progress))) }
      : {}),
  });
  if (moved)
    await s.jobs.enqueue(
      'task-poll',
      { taskId: task.id },
      { jobId: jobId('task-poll', task.id, polls), delay: nextPollDelayMs(polls, s.config.tasks.firstPollMs) },
    );
  return 'pending';
}
