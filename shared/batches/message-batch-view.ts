import type { BatchRow } from '../db/batches-schema.js';
import type { LineTotals } from '../db/batches.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const ENDED = new Set(['completed', 'failed', 'expired', 'cancelled']);

export function processingStatus(batch: BatchRow): 'in_progress' | 'canceling' | 'ended' {
  if (ENDED.has(batch.status)) return 'ended';
  return batch.status === 'cancelling' ? 'canceling' : 'in_progress';
}

/** When the batch ended, whichever way. */
export function endedAt(batch: BatchRow): Date | null {
  return batch.completed_at ?? batch.cancelled_at ?? batch.expired_at ?? batch.failed_at;
}

/**
 * Anthropic's Message Batch object. Lines not run are `processing` while the batch runs, and
 * `canceled` or `expired` once it ended that way; `results_url` appears once it ended.
 */
export function messageBatchObject(batch: BatchRow, totals: LineTotals, resultsUrl: string) {
  const status = processingStatus(batch);
  const notRun = totals.total - totals.completed - totals.failed;
  return {
    id: batch.id,
    type: 'message_batch' as const,
    processing_status: status,
    request_counts: {
      processing: status === 'ended' ? 0 : notRun,
      succeeded: totals.completed,
      errored: totals.failed,
      canceled: status === 'ended' && batch.status === 'cancelled' ? notRun : 0,
      expired: status === 'ended' && batch.status === 'expired' ? notRun : 0,
    },
    ended_at: iso(endedAt(batch)),
    created_at: batch.created_at.toISOString(),
    expires_at: batch.expires_at.toISOString(),
    archived_at: null,
    cancel_initiated_at: iso(batch.cancelling_at),
    results_url: status === 'ended' ? resultsUrl : null,
  };
}

/** One line of the results (JSONL), from a stored line: its answer, its error, or why it never ran. */
export function messageBatchResult(
  batch: BatchRow,
  line: { custom_id: string; status: string; response: string | null },
): string {
  const head = `{"custom_id":${JSON.stringify(line.custom_id)},"result":`;
  if (line.status === 'succeeded') return `${head}{"type":"succeeded","message":${line.response}}}`;
  if (line.status === 'failed') return `${head}{"type":"errored","error":${line.response}}}`;
  return `${head}{"type":"${batch.status === 'expired' ? 'expired' : 'canceled'}"}}`;
}
