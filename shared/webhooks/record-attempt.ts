import type { Db, Trx } from '../db/index.js';
import { failPendingDeliveries, insertAttempt, settleDelivery, type DeliveryTarget } from '../db/webhook-deliveries.js';
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
 * failed for good. An endpoint whose every attempt has failed for 3 days is disabled, and its other
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
    if (await disableIfFailingTooLong(trx, endpoint.id, attemptedAt)) {
      return { nextAt: undefined, endpointDisabled: true, summary: `${result.error}; endpoint disabled` };
    }
    if (!stillPending)
      return { nextAt: undefined, endpointDisabled: false, summary: `${result.error}; ended meanwhile` };
    return {
      nextAt,
      endpointDisabled: false,
      summary: nextAt === undefined ? `${result.error}; given up` : `${result.error}; retrying`,
    };
  });
}

/** Marks the endpoint failing from now on (unless it already is), and disables it once that has lasted 3 days. */
async function disableIfFailingTooLong(trx: Trx, endpointId: string, now: Date): Promise<boolean> {
  const row = await trx
    .updateTable('webhook_endpoints')
    .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(now)) }))
    .where('id', '=', endpointId)
    .returning(['failing_since', 'enabled'])
    .executeTakeFirst();
  if (!row?.enabled || !row.failing_since || now.getTime() - row.failing_since.getTime() < RETRY_WINDOW_MS)
    return false;
  await trx
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_reason: 'failing', disabled_at: now, owner_notified_at: null, updated_at: now })
    .where('id', '=', endpointId)
    .execute();
  await failPendingDeliveries(trx, endpointId, DISABLED_FOR_FAILING, now);
  return true;
}
