import { stalePrivateChats } from '../../shared/db/private-calls.js';
import { openTasks } from '../../shared/db/tasks.js';
import { purgeExpiredKeys } from '../../shared/idempotency/replay.js';
import { dropExpiredUsagePartitions, ensureUsagePartitions } from '../../shared/db/usage-partitions.js';
import { sweepExpiredUploads } from '../../shared/assets/sweep.js';
import { sweepFetchedObjects } from '../../shared/assets/sweep-fetched.js';
import { jobId } from '../../shared/jobs/catalog.js';
import { NEXT_JOB, type TaskJobServices } from './task-steps.js';
import { sweepWebhooks } from '../../shared/webhooks/sweep.js';
import { mailBudgetNotices } from '../../shared/keys/budget-notice.js';
import { openBatches } from '../../shared/db/batches.js';
import { enqueueBatch } from '../../shared/batches/create-batch.js';
import { withJobOrigin } from '../../shared/telemetry/spans.js';

/**
 * Periodically, on one worker at a time: purges idempotency keys past their window, keeps the
 * usage-record partitions ahead (and drops those past USAGE_RETENTION_DAYS), sweeps expired asset
 * reservations with their objects and fetched images whose links expired, mails budget soft-threshold
 * notices (shared/keys/budget-notice.ts), and re-enqueues the next job
 * of tasks, private calls and batches that lost theirs. Adding a job whose id exists is a no-op, and every job checks the
 * task's stage first, so a task that was fine is not disturbed.
 */
/** What one maintenance run did: `redriven` counts the tasks and private calls whose job was enqueued again. */
export interface MaintenanceOutcome {
  redriven: number;
  summary: string;
}

export async function maintenance(s: TaskJobServices, staleAfterMs: number): Promise<MaintenanceOutcome> {
  const now = s.clock.now();
  const purged = await purgeExpiredKeys(s.db, now);
  // Partition upkeep never holds up the task re-drive below (a month whose rows already sit in the
  // default partition cannot get its own: logged, and the rows stay readable there).
  const partitions = await ensureUsagePartitions(s.db, now).catch((err: Error) => [`failed: ${err.message}`]);
  const dropped = await dropExpiredUsagePartitions(s.db, now, s.config.usage.retentionDays).catch((err: Error) => [
    `failed: ${err.message}`,
  ]);
  const swept = await sweepExpiredUploads(s.db, s.storage, now).catch(() => 0);
  const fetched = await sweepFetchedObjects(s.db, s.storage, now).catch(() => 0);
  // A task untouched this long has probably lost its job (Redis restarted without its data).
  const stale = await openTasks(s.db, 500, new Date(now - staleAfterMs));
  for (const t of stale) {
    const name = NEXT_JOB[t.stage];
    if (!name) continue;
    const id = jobId(name, t.id, name === 'task-poll' ? t.polls : 0);
    // A job that failed for good (attempts spent, or stalled too often: its worker died under it
    // twice) keeps its id, and adding under an existing id is a no-op: remove it so the task runs again.
    const old = await s.jobs.queues.get(name)!.getJob(id);
    if (old && (await old.isFailed())) await old.remove();
    // The job links to the request that created the task, as the lost one did (the row kept its trace context).
    await withJobOrigin(t.trace_context, () => s.jobs.enqueue(name, { taskId: t.id }, { jobId: id }));
  }
  // Private chat calls whose job was lost (never enqueued, or Redis lost it): their job again.
  const calls = await stalePrivateChats(s.db, new Date(now - staleAfterMs), 500);
  for (const c of calls) {
    const id = jobId('private-chat', c.id);
    const old = await s.jobs.queues.get('private-chat')!.getJob(id);
    if (old && ((await old.isFailed()) || (await old.isCompleted()))) await old.remove();
    await withJobOrigin(c.trace_context, () => s.jobs.enqueue('private-chat', { callId: c.id }, { jobId: id }));
  }
  // Batches not ended whose job was lost: their job again (a no-op while it waits or runs).
  const batches = await openBatches(s.db, 500);
  for (const b of batches) await withJobOrigin(b.trace_context, () => enqueueBatch(s, b.id));
  const webhooks = await sweepWebhooks(s, now, staleAfterMs).catch(
    (err: Error) => `webhook sweep failed: ${err.message}`,
  );
  const budgetNotices = await mailBudgetNotices(s, now).then(
    (n) => `${n} budget notices mailed`,
    (err: Error) => `budget notice sweep failed: ${err.message}`,
  );
  const summary = `purged ${purged} keys, re-enqueued ${stale.length} tasks and ${calls.length} private chat calls, ${batches.length} open batches looked after, usage partitions created [${partitions.join(', ')}] dropped [${dropped.join(', ')}], ${swept} expired uploads and ${fetched} expired fetched images swept, ${webhooks}, ${budgetNotices}`;
  return { redriven: stale.length + calls.length, summary };
}
