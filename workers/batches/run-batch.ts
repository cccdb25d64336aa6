import type { Job } from 'bullmq';
import { endBatch, type BatchEnd } from '../../shared/batches/end-batch.js';
import type { BatchEndpoint } from '../../shared/batches/endpoints.js';
import { writeResultFiles } from '../../shared/batches/result-files.js';
import { validateInput } from '../../shared/batches/validate-input.js';
import type { BatchRow, BatchStatus, BatchValidationError } from '../../shared/db/batches-schema.js';
import { findBatch, lineTotals, moveBatch } from '../../shared/db/batches.js';
import { findUserFile } from '../../shared/db/files.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { runLines } from './run-lines.js';

/**
 * The `batch` job: a batch from wherever it stands to its end, resumable at every step — the
 * input validated into lines (`validating` → `in_progress`, or `failed` naming the bad lines),
 * the pending lines run (run-lines.ts: each line's result stored before it counts), then the
 * output and error files written and the batch ended with its event (`completed`, `expired`
 * with the partial output, `cancelled`). A run after a crash finds the state in Postgres and
 * goes on from there: no line is run or charged twice.
 */
export async function runBatch(s: GatewayServices, job: Job<{ batchId: string }>): Promise<string> {
  let batch = await findBatch(s.db, job.data.batchId);
  if (!batch) return 'nothing to do';
  if (batch.status === 'validating') batch = await validate(s, batch);
  if (batch.status === 'in_progress' && !expired(s, batch)) {
    await runLines(s, batch, () => expired(s, batch!));
    batch = (await findBatch(s.db, batch.id))!;
  }
  return finish(s, batch);
}

function expired(s: GatewayServices, batch: BatchRow): boolean {
  return s.clock.now() >= batch.expires_at.getTime();
}

async function validate(s: GatewayServices, batch: BatchRow): Promise<BatchRow> {
  const started = performance.now();
  const file = batch.input_file_id ? await findUserFile(s.db, batch.user_id, batch.input_file_id) : undefined;
  const stored = file ? await s.storage.get(file.object_key) : undefined;
  const { lines, errors } = stored
    ? await validateInput(
        s.db,
        { id: batch.id, endpoint: batch.endpoint as BatchEndpoint },
        stored.body,
        s.config.http.bodyLimitBytes,
      )
    : { lines: 0, errors: [missingFile(batch)] };
  const now = new Date(s.clock.now());
  s.log.info(
    { batch: batch.id, lines, errors: errors.length, ms: Math.round(performance.now() - started) },
    'batch validated',
  );
  if (errors.length > 0) {
    await s.db.deleteFrom('batch_lines').where('batch_id', '=', batch.id).execute();
    const failed = await endBatch(
      s.db,
      s.jobs,
      batch.id,
      ['validating', 'cancelling'],
      { status: 'failed', errors: JSON.stringify(errors), failed_at: now },
      now,
    );
    return failed ?? (await findBatch(s.db, batch.id))!;
  }
  const moved = await moveBatch(s.db, batch.id, ['validating'], {
    status: 'in_progress',
    in_progress_at: now,
    total: lines,
  });
  return moved ?? (await findBatch(s.db, batch.id))!;
}

const missingFile = (batch: BatchRow): BatchValidationError => ({
  code: 'invalid_input_file',
  message: `the input file ${batch.input_file_id} no longer exists`,
  param: 'input_file_id',
  line: null,
});

const END_AT: Record<BatchEnd, 'completed_at' | 'failed_at' | 'expired_at' | 'cancelled_at'> = {
  completed: 'completed_at',
  failed: 'failed_at',
  expired: 'expired_at',
  cancelled: 'cancelled_at',
};

/** The result files and the end: cancelled, expired (lines left), or completed through `finalizing`. */
async function finish(s: GatewayServices, batch: BatchRow): Promise<string> {
  let end: BatchEnd;
  let from: BatchStatus[];
  if (batch.status === 'cancelling') {
    end = 'cancelled';
    from = ['cancelling'];
  } else if (batch.status === 'in_progress' && expired(s, batch)) {
    end = 'expired';
    from = ['in_progress'];
  } else if (batch.status === 'in_progress' || batch.status === 'finalizing') {
    end = 'completed';
    from = ['finalizing'];
    if (batch.status === 'in_progress') {
      const moved = await moveBatch(s.db, batch.id, ['in_progress'], {
        status: 'finalizing',
        finalizing_at: new Date(s.clock.now()),
      });
      // Cancelled just now: ended that way instead.
      if (!moved) return finish(s, (await findBatch(s.db, batch.id))!);
      batch = moved;
    }
  } else return `nothing to do (${batch.status})`;
  // Message Batches serve their results straight from the lines (api/messages/message-batches.ts): no files.
  const files =
    batch.api === 'openai'
      ? await writeResultFiles(s.db, s.storage, batch, end === 'completed' ? undefined : end)
      : { outputFileId: null, errorFileId: null };
  const totals = await lineTotals(s.db, batch.id);
  const now = new Date(s.clock.now());
  const ended = await endBatch(
    s.db,
    s.jobs,
    batch.id,
    from,
    {
      status: end,
      output_file_id: files.outputFileId,
      error_file_id: files.errorFileId,
      total: totals.total,
      completed: totals.completed,
      failed: totals.failed,
      input_tokens: totals.input_tokens,
      output_tokens: totals.output_tokens,
      cached_tokens: totals.cached_tokens,
      [END_AT[end]]: now,
    },
    now,
  );
  if (!ended) throw new Error(`batch ${batch.id} left ${from.join('/')} while ending ${end}`);
  return end;
}
