import type { Db } from '../db/index.js';
import { unsentDeliveriesOf } from '../db/webhook-events.js';
import { jobId } from '../jobs/catalog.js';
import type { JobQueues } from '../jobs/queues.js';

/**
 * Enqueues the attempt that follows `attempts` made. Its job id is fixed by the pair, so adding it
 * again while it waits or runs is a no-op; a finished job still kept under that id (one that found
 * nothing to do, or failed for good) is removed first, or the add would be a no-op too.
 */
export async function enqueueDelivery(
  jobs: JobQueues,
  deliveryId: string,
  attempts: number,
  delayMs = 0,
): Promise<void> {
  const id = jobId('webhook', deliveryId, attempts);
  const old = await jobs.queues.get('webhook')!.getJob(id);
  if (old && ((await old.isCompleted()) || (await old.isFailed()))) await old.remove();
  await jobs.enqueue('webhook', { deliveryId }, { jobId: id, ...(delayMs > 0 ? { delay: delayMs } : {}) });
}

/** Enqueues the first attempt of every delivery of the subject's events not yet tried (after the commit that wrote them). */
export async function enqueueUnsentDeliveries(db: Db, jobs: JobQueues, subjectId: string): Promise<void> {
  for (const d of await unsentDeliveriesOf(db, subjectId)) await enqueueDelivery(jobs, d.id, d.attempts);
}
