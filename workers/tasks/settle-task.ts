import type { Job } from 'bullmq';
import type { TaskRow } from '../../shared/db/schema.js';
import { advanceTask, findTask } from '../../shared/db/tasks.js';
import { publishCallEnded } from '../../shared/private/call-waiter.js';
import { TASK_ENDPOINT } from '../../shared/tasks/create-task.js';
import type { UsageEvent } from '../../shared/usage/record.js';
import type { TaskJobServices } from './task-steps.js';
import { enqueueUnsentDeliveries } from '../../shared/webhooks/enqueue.js';

// How an unsuccessful task reads in usage records (it is charged nothing either way).
const STATUS_CODES: Record<string, number> = { succeeded: 200, failed: 502, cancelled: 499, expired: 504 };

/**
 * Charges a succeeded task its price exactly once (the finish is keyed by the task id, and the
 * ledger is unique by it), or releases the whole reservation of one that failed, was cancelled or
 * expired. Image tasks pay for the images delivered.
 */
export async function settleTask(s: TaskJobServices, job: Job<{ taskId: string }>): Promise<string> {
  const task = await findTask(s.db, job.data.taskId);
  if (!task || task.stage !== 'settle') return 'nothing to do';
  const cost = task.status === 'succeeded' ? priceDelivered(task) : 0;
  const now = s.clock.now();
  const charged = await s.admissions.finish({
    owner: { userId: task.user_id, keyId: task.api_key_id ?? '' },
    callId: task.id,
    now,
    cost,
    admitted: undefined,
    actualTokens: 0,
    record: usageEvent(task, now),
    once: true,
  });
  await advanceTask(s.db, task.id, ['settle'], { stage: 'done', charged_micro_usd: Math.max(0, charged) });
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

function usageEvent(task: TaskRow, now: number): UsageEvent {
  return {
    id: task.id,
    request_id: task.request_id,
    user_id: task.user_id,
    api_key_id: task.api_key_id,
    model: task.model,
    provider: task.provider,
    endpoint: TASK_ENDPOINT[task.kind],
    status_code: STATUS_CODES[task.status] ?? 500,
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
