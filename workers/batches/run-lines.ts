import { AccountSlots } from '../../shared/batches/account-slots.js';
import { ENDPOINT_SPECS, type BatchEndpoint } from '../../shared/batches/endpoints.js';
import { lineRequestId } from '../../shared/batches/line-ids.js';
import { LineWaits, runLine, storeLineFailure, type PendingLine } from '../../shared/batches/run-line.js';
import type { BatchRow } from '../../shared/db/batches-schema.js';
import { findBatch, pendingLines } from '../../shared/db/batches.js';
import { GatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { inChildSpan } from '../../shared/telemetry/spans.js';

/** Pending lines read per query, per lane: a few lines ahead, so the bodies waiting to run stay young (cheap to collect). */
const LINES_AHEAD_PER_LANE = 4;
/** How often a running batch looks for a cancellation and its window's end. */
const WATCH_MS = 250;
/** A lane keeps its slot from line to line (LaneSlot), renewing its lease once this old. */
const SLOT_RENEW_MS = 30_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs a batch's pending lines in file order on BATCH_CONCURRENCY lanes, each lane holding one of
 * the account's slots while it runs lines (AccountSlots: the bound is the account's, across its
 * batches and workers; a lane gives its slot back while a line waits and when it ends).
 * A line that must wait (the key's rate limit) waits in its lane and runs again; the lanes stop
 * taking lines when the batch is cancelled or its window ends (`expired()`), and resolve once the
 * lines in flight have ended. Lines are read a chunk at a time: memory stays flat however long the batch.
 */
export async function runLines(s: GatewayServices, batch: BatchRow, expired: () => boolean): Promise<void> {
  const { concurrency } = s.config.batches;
  // A lane's lease, renewed before a line once SLOT_RENEW_MS old, outlasts the longest line started under it.
  const slotTtlMs = s.config.upstream.headersTimeoutMs + s.config.upstream.bodyTimeoutMs + 2 * SLOT_RENEW_MS;
  const slots = new AccountSlots(s.redis, s.config.redis.prefix, concurrency, slotTtlMs);
  const spec = ENDPOINT_SPECS[batch.endpoint as BatchEndpoint];
  let stopped = false;
  const watch = setInterval(() => {
    if (expired()) stopped = true;
    findBatch(s.db, batch.id).then(
      (row) => {
        if (row?.status !== 'in_progress') stopped = true;
      },
      () => undefined,
    );
  }, WATCH_MS);
  const chunk = concurrency * LINES_AHEAD_PER_LANE;
  const queue: PendingLine[] = [];
  let after = 0;
  let exhausted = false;
  let refill: Promise<void> | undefined;
  const next = async (): Promise<PendingLine | undefined> => {
    while (queue.length === 0 && !exhausted) {
      refill ??= pendingLines(s.db, batch.id, after, chunk).then((rows) => {
        refill = undefined;
        if (rows.length < chunk) exhausted = true;
        if (rows.length > 0) after = rows.at(-1)!.line;
        queue.push(...rows);
      });
      await refill;
    }
    return queue.shift();
  };
  const lane = async (index: number) => {
    const slot = slots.lane(batch.user_id, `${batch.id}:${index}`, SLOT_RENEW_MS);
    try {
      for (let line = await next(); line && !stopped; line = await next()) {
        const key = await usableKey(s, batch);
        const current = line;
        // Each line in a span of its own, a child of the batch job's: its call's GenAI attributes
        // and upstream request land there, not on the job's span (docs/reference/operations.md).
        const attributes = { 'gateway.batch.id': batch.id, 'gateway.batch.line': current.line };
        await inChildSpan('batch line', attributes, async () => {
          for (;;) {
            if (stopped) return;
            if (!(await slot.take())) {
              await sleep(50);
              continue;
            }
            let waitMs = 0;
            try {
              if (key instanceof GatewayError) {
                const requestId = lineRequestId(batch.id, current.custom_id);
                await storeLineFailure(s, batch, { line: current.line, requestId }, spec.errors, key);
              } else await runLine(s, key, batch, current);
            } catch (err) {
              if (!(err instanceof LineWaits)) throw err;
              waitMs = err.afterMs;
            }
            if (waitMs === 0) return;
            // The line waits without its slot, then runs again.
            await slot.release();
            await sleep(waitMs);
          }
        });
        if (stopped) return;
      }
    } finally {
      await slot.release();
    }
  };
  try {
    // A lane that fails (Postgres or Redis away) stops the others before the job's retry starts
    // lanes of its own: no line runs in two lanes at once.
    const lanes = await Promise.allSettled(
      Array.from({ length: concurrency }, (_, i) =>
        lane(i).catch((err: unknown) => {
          stopped = true;
          throw err;
        }),
      ),
    );
    const failed = lanes.find((l) => l.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  } finally {
    clearInterval(watch);
  }
}

/** The batch's key as its lines run: one revoked, disabled or expired since fails the lines left, as a call would. */
async function usableKey(s: GatewayServices, batch: BatchRow): Promise<ApiKeyContext | GatewayError> {
  const key = batch.api_key_id ? await s.keyCache.lookupById(batch.api_key_id) : null;
  if (!key || key.status === 'revoked')
    return new GatewayError('invalid_api_key', 401, 'the key of this batch no longer exists');
  if (key.status === 'disabled') return new GatewayError('key_disabled', 403, 'this API key is disabled');
  if (key.expiresAt !== null && key.expiresAt <= s.clock.now())
    return new GatewayError('key_expired', 403, 'the key of this batch has expired');
  return key;
}
