import type { Db, Trx } from '../db/index.js';
import {
  failPendingDeliveries,
  firstAttemptSince,
  insertAttempt,
  releaseAttempt,
  settleDelivery,
  type DeliveryTarget,
} from '../db/webhook-deliveries.js';
import { lockEndpoint } from '../db/webhook-endpoints.js';
import { nextAttemptAt, RETRY_WINDOW_MS } from './retry-schedule.js';
import type { AttemptResult } from './send-attempt.js';

export interface AttemptOutcome {
  /** When the next attempt is due (domain ms); undefined when there is none. */
  nextAt: number | undefined;
  /** This failure ended 3 days of failing: the endpoint was disabled (its owner is to be mailed). */
  endpointDisabled: boolean;
  summary: string;
}

export const DISABLED_FOR_FAILING = 'the endpoint was disabled: its deliveries failed for 3 days';

/**
 * Records an attempt and what follows from it, in one transaction: delivered (the endpoint is no
 * longer failing), or the next attempt scheduled on the backoff, or — past the delivery's 3 days —
 * failed for good. An endpoint failing for 3 days is disabled (failingTooLong), and its other
 * pending deliveries end with it.
 */
export function recordAttempt(
  db: Db,
  target: DeliveryTarget,
  result: AttemptResult,
  attemptedAt: Date,
  attempts: number,
  retryBaseMs: number,
): Promise<AttemptOutcome> {
  const now = attemptedAt.getTime();
  const { delivery, endpoint } = target;
  return db.transaction().execute(async (trx) => {
    await lockEndpoint(trx, endpoint.id);
    await insertAttempt(trx, {
      delivery_id: delivery.id,
      attempted_at: attemptedAt,
      status_code: result.statusCode,
      duration_ms: result.durationMs,
      response_excerpt: result.excerpt,
      error: result.error,
    });
    if (result.delivered) {
      await settleDelivery(
        trx,
        delivery.id,
        { status: 'delivered', next_attempt_at: null, last_error: null, delivered_at: attemptedAt },
        attemptedAt,
      );
      await trx
        .updateTable('webhook_endpoints')
        .set({ failing_since: null })
        .where('id', '=', endpoint.id)
        .where('failing_since', 'is not', null)
        .execute();
      return { nextAt: undefined, endpointDisabled: false, summary: `delivered (${result.statusCode})` };
    }
    const nextAt = nextAttemptAt(attempts, now, delivery.retry_until.getTime(), retryBaseMs);
    const stillPending = await settleDelivery(
      trx,
      delivery.id,
      nextAt === undefined
        ? { status: 'failed', next_attempt_at: null, last_error: result.error }
        : { status: 'pending', next_attempt_at: new Date(nextAt), last_error: result.error },
      attemptedAt,
      true,
    );
    // The delivery's retries ran out: its window (from the event or the redelivery) started then.
    const spentWindow =
      nextAt === undefined && stillPending ? new Date(delivery.retry_until.getTime() - RETRY_WINDOW_MS) : undefined;
    if (await disableIfFailingTooLong(trx, endpoint.id, attemptedAt, delivery.id, spentWindow)) {
      return { nextAt: undefined, endpointDisabled: true, summary: `${result.error}; endpoint disabled` };
    }
    if (!stillPending) {
      // Ended while this attempt ran (its endpoint disabled): the attempt is over all the same, so a
      // redelivery may claim the next one at once rather than wait out the attempt's lease.
      await releaseAttempt(trx, delivery.id);
      return { nextAt: undefined, endpointDisabled: false, summary: `${result.error}; ended meanwhile` };
    }
    return {
      nextAt,
      endpointDisabled: false,
      summary: nextAt === undefined ? `${result.error}; given up` : `${result.error}; retrying`,
    };
  });
}

/**
 * Marks the endpoint failing from now on (unless it already is), and disables it once it has failed
 * for 3 days: every attempt failed since `failing_since` 3 days ago, or a delivery's window has
 * just run out (`spentWindowStart`) with every attempt to the endpoint failing since that
 * delivery's first attempt — the rule docs/reference/webhooks.md ("Disabling") states and explains.
 */
async function disableIfFailingTooLong(
  trx: Trx,
  endpointId: string,
  now: Date,
  deliveryId: string,
  spentWindowStart: Date | undefined,
): Promise<boolean> {
  const row = await trx
    .updateTable('webhook_endpoints')
    .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(now)) }))
    .where('id', '=', endpointId)
    .returning(['failing_since', 'enabled'])
    .executeTakeFirst();
  if (!row?.enabled || !row.failing_since) return false;
  const failingSince = row.failing_since.getTime();
  const tooLong =
    now.getTime() - failingSince >= RETRY_WINDOW_MS ||
    (spentWindowStart !== undefined &&
      failingSince <= ((await firstAttemptSince(trx, deliveryId, spentWindowStart))?.getTime() ?? 0));
  if (!tooLong) return false;
  await trx
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_reason: 'failing', disabled_at: now, owner_notified_at: null, updated_at: now })
    .where('id', '=', endpointId)
    .execute();
  await failPendingDeliveries(trx, endpointId, DISABLED_FOR_FAILING, now);
  return true;
}
