import type { BatchRow } from '../db/batches-schema.js';
import { lineTotals, type LineTotals } from '../db/batches.js';
import type { Db } from '../db/index.js';

const unix = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

/** Counts and usage: from the lines while the batch runs (live), from the row once it ended. */
export async function totalsOf(db: Db, batch: BatchRow): Promise<LineTotals> {
  if (batch.status === 'in_progress' || batch.status === 'cancelling' || batch.status === 'finalizing')
    return lineTotals(db, batch.id);
  return batch;
}

/** OpenAI's batch object. */
export function batchObject(batch: BatchRow, totals: LineTotals) {
  return {
    id: batch.id,
    object: 'batch' as const,
    endpoint: batch.endpoint,
    errors: batch.errors ? { object: 'list' as const, data: batch.errors } : null,
    input_file_id: batch.input_file_id,
    completion_window: batch.completion_window,
    status: batch.status,
    output_file_id: batch.output_file_id,
    error_file_id: batch.error_file_id,
    created_at: unix(batch.created_at),
    in_progress_at: unix(batch.in_progress_at),
    expires_at: unix(batch.expires_at),
    finalizing_at: unix(batch.finalizing_at),
    completed_at: unix(batch.completed_at),
    failed_at: unix(batch.failed_at),
    expired_at: unix(batch.expired_at),
    cancelling_at: unix(batch.cancelling_at),
    cancelled_at: unix(batch.cancelled_at),
    request_counts: { total: totals.total, completed: totals.completed, failed: totals.failed },
    usage: {
      input_tokens: totals.input_tokens,
      input_tokens_details: { cached_tokens: totals.cached_tokens },
      output_tokens: totals.output_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: totals.input_tokens + totals.output_tokens,
    },
    metadata: batch.metadata ?? null,
  };
}
