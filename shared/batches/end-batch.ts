import type { Updateable } from 'kysely';
import type { BatchRow, BatchStatus, BatchesTable } from '../db/batches-schema.js';
import { moveBatch } from '../db/batches.js';
import type { Db } from '../db/index.js';
import type { JobQueues } from '../jobs/queues.js';
import { enqueueUnsentDeliveries } from '../webhooks/enqueue.js';
import type { WebhookEventType } from '../webhooks/events.js';
import { recordEvent } from '../webhooks/outbox.js';

export type BatchEnd = 'completed' | 'failed' | 'expired' | 'cancelled';

/**
 * Ends a batch from the statuses given (a compare-and-set) and, in the same transaction, writes the
 * event that announces it (`batch.completed`, `batch.failed`, …) to the webhook outbox: a batch
 * never ends without its event, and no event announces an end that did not happen. The deliveries
 * are enqueued after the commit (the maintenance sweep enqueues any this misses).
 */
export async function endBatch(
  db: Db,
  jobs: JobQueues,
  id: string,
  from: readonly BatchStatus[],
  patch: Updateable<BatchesTable> & { status: BatchEnd },
  endedAt: Date,
): Promise<BatchRow | undefined> {
  const row = await db.transaction().execute(async (trx) => {
    const moved = await moveBatch(trx, id, from, patch);
    if (moved)
      await recordEvent(
        trx,
        {
          userId: moved.user_id,
          type: `batch.${patch.status}` as WebhookEventType,
          subject: { id, object: moved.api === 'anthropic' ? 'message_batch' : 'batch' },
          createdAt: endedAt,
        },
        { subscribers: true },
      );
    return moved;
  });
  if (row) await enqueueUnsentDeliveries(db, jobs, id).catch(() => undefined);
  return row;
}
