import type { Job } from 'bullmq';
import type { TaskRow, TaskStatus } from '../../shared/db/schema.js';
import { advanceTask, findTask } from '../../shared/db/tasks.js';
import { usageRecordWritten } from '../../shared/db/usage-records.js';
import { publishCallEnded } from '../../shared/private/call-waiter.js';
import { TASK_ENDPOINT } from '../../shared/tasks/create-task.js';
import { endTask } from '../../shared/tasks/end-task.js';
import type { UsageEvent } from '../../shared/usage/record.js';
import type { TaskJobServices } from './task-steps.js';
import { enqueueUnsentDeliveries } from '../../shared/webhooks/enqueue.js';

// How an unsuccessful task reads in usage records (it is charged nothing either way).
const STATUS_CODES: Record<string, number> = { succeeded: 200, failed: 502, cancelled: 499, expired: 504 };

/** How long one run waits for the usage drain to write the charge to Postgres before it retries. */
const LEDGER_WAIT_MS = 10_000;

/**
 * Charges a succeeded task its price exactly once (the finish is keyed by the task id, and the
 * ledger is unique by it), or releases the whole reservation of one that failed, was cancelled or
 * expired. Image tasks pay for the images delivered.
 *
 * A task the upstream completed reaches this stage still `running` (mirror-task.ts), and reads
 * `succeeded` only here, once its charge is in the ledger: the charge is made in Redis (once), the
 * run waits until the usage drain has written its record — and with it the ledger entry — to
 * Postgres, and only then ends the task, writing its `*.completed` event in the same transaction
 * (end-task.ts). A run killed anywhere in between is run again by the next worker within seconds
 * (WORKER_LOCK_MS): the finish answers the charge it made, and the end happens once.
 */
export async function settleTask(s: TaskJobServices, job: Job<{ taskId: string }>): Promise<string> {
  const task = await findTask(s.db, job.data.taskId);
  if (task?.stage !== 'settle') return 'nothing to do';
  // `succeeded` at this stage: a task ended before this release (its end and event already written).
  const succeeded = task.status === 'running' || task.status === 'succeeded';
  const status: TaskStatus = task.status === 'running' ? 'succeeded' : task.status;
  const cost = succeeded ? priceDelivered(task) : 0;
  const now = s.clock.now();
  const charged = await s.admissions.finish({
    owner: { userId: task.user_id, keyId: task.api_key_id ?? '' },
    callId: task.id,
    now,
    cost,
    admitted: undefined,
    actualTokens: 0,
    record: usageEvent(task, status, now),
    once: true,
  });
  // The record's time is this worker's clock: a day's margin for clocks that disagree.
  const since = new Date(task.created_at.getTime() - 86_400_000);
  if (succeeded && !(await usageRecordWritten(s.db, task.id, since, LEDGER_WAIT_MS))) {
    throw new Error(`the usage record of ${task.id} is not in Postgres yet (is a usage drain running?)`);
  }
  const settled = { stage: 'done' as const, charged_micro_usd: Math.max(0, charged) };
  if (task.status === 'running') {
    await endTask(s.db, task.id, ['settle'], { ...settled, status: 'succeeded', finished_at: new Date(now) });
  } else {
    await advanceTask(s.db, task.id, ['settle'], settled);
  }
  // Every task ends here: a private-protocol call waiting for it wakes now (shared/private/call-waiter.ts).
  await publishCallEnded(s.redis, s.redisKeys.callEnded, task.id).catch(() => undefined);
  // The task's end event was written with its end; it leaves now, so its receiver finds the charge final.
  await enqueueUnsentDeliveries(s.db, s.jobs, task.id);
  return `charged ${charged}`;
}

function priceDelivered(task: TaskRow): number {
  if (task.kind !== 'image') return task.reserved_micro_usd;
  const asked = Number(task.request.n ?? 1);
  const delivered = Math.min(asked, task.provider_urls?.length ?? asked);
  return Math.ceil((task.reserved_micro_usd * delivered) / asked);
}

function usageEvent(task: TaskRow, status: TaskStatus, now: number): UsageEvent {
  return {
    id: task.id,
    request_id: task.request_id,
    user_id: task.user_id,
    api_key_id: task.api_key_id,
    model: task.model,
    provider: task.provider,
    endpoint: TASK_ENDPOINT[task.kind],
    status_code: STATUS_CODES[status] ?? 500,
    error_code: task.error_code,
    stream: false,
    input_tokens: 0,
    output_tokens: 0,
    cached_tokens: 0,
    usage_estimated: false,
    tags: task.tags,
    latency_ms: now - task.created_at.getTime(),
    ttft_ms: null,
    created_at: new Date(now).toISOString(),
  };
}
