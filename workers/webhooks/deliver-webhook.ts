import type { Job } from 'bullmq';
import {
  claimAttempt,
  findDeliveryTarget,
  releaseAttempt,
  settleDelivery,
} from '../../shared/db/webhook-deliveries.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { mailDisabledEndpointOwners } from '../../shared/webhooks/disabled-notice.js';
import { enqueueDelivery } from '../../shared/webhooks/enqueue.js';
import { recordAttempt } from '../../shared/webhooks/record-attempt.js';
import { attemptLeaseMs } from '../../shared/webhooks/retry-schedule.js';
import { sendAttempt } from '../../shared/webhooks/send-attempt.js';

/**
 * The `webhook` job: one attempt of one delivery. The delivery's row says whether one is
 * due (a second job for it, or a run after the delivery ended, does nothing); the attempt is claimed
 * before it is sent, recorded after, and a failure schedules the next attempt as a new delayed job.
 * A worker that dies mid-attempt loses nothing: BullMQ runs the job again once its lock lapses, and
 * that run takes the attempt over (the same event, so the same `webhook-id`); a job lost with Redis
 * is enqueued again by the maintenance sweep.
 */
export async function deliverWebhook(s: GatewayServices, job: Job<{ deliveryId: string }>): Promise<string> {
  const target = await findDeliveryTarget(s.db, job.data.deliveryId);
  if (target?.delivery.status !== 'pending') {
    // An earlier run of this job claimed an attempt and failed before recording it, and the
    // delivery ended meanwhile: that run is over (BullMQ runs a job again only then), so its claim
    // goes, or it would hold a redelivery back for the claim's whole lease.
    if (target && target.delivery.attempt_job === (job.id ?? job.name)) await releaseAttempt(s.db, target.delivery.id);
    return 'nothing to do';
  }
  const { delivery, endpoint } = target;
  const now = new Date(s.clock.now());
  if (!endpoint.enabled) {
    const ended = { status: 'failed', next_attempt_at: null, last_error: 'the endpoint is disabled' } as const;
    await settleDelivery(s.db, delivery.id, ended, now);
    return 'endpoint disabled';
  }
  const leaseMs = attemptLeaseMs(s.config.webhooks.attemptTimeoutMs);
  const attempts = await claimAttempt(s.db, delivery.id, job.id ?? job.name, now, leaseMs);
  if (attempts === undefined) return 'not due, or an attempt is in flight';
  const result = await sendAttempt(s.config.webhooks, endpoint, target.event, now.getTime());
  const outcome = await recordAttempt(s.db, target, result, now, attempts, s.config.webhooks.retryBaseMs);
  if (outcome.nextAt !== undefined)
    await enqueueDelivery(s.jobs, delivery.id, attempts, Math.max(0, outcome.nextAt - s.clock.now()));
  if (outcome.endpointDisabled) await mailDisabledEndpointOwners(s.db, s.jobs, new Date(s.clock.now()));
  return outcome.summary;
}
