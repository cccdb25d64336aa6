import { withJobOrigin } from '../telemetry/spans.js';
import { overdueDeliveries } from '../db/webhook-deliveries.js';
import { pruneEvents } from '../db/webhook-events.js';
import type { Db } from '../db/index.js';
import type { JobQueues } from '../jobs/queues.js';
import { mailDisabledEndpointOwners } from './disabled-notice.js';
import { enqueueDelivery } from './enqueue.js';
import type { WebhookConfig } from './config.js';
import { attemptLeaseMs } from './retry-schedule.js';

/** Events, their deliveries and attempts are kept this long once every delivery is over. */
export const EVENT_RETENTION_MS = 30 * 24 * 3600 * 1000;

/**
 * The webhooks' part of maintenance: re-enqueues every delivery overdue by `staleAfterMs` with no
 * live attempt (its job was lost: Redis lost its data, or the process died between the commit and
 * the enqueue), mails the owners of endpoints disabled but not yet told, and prunes old events.
 */
export async function sweepWebhooks(
  s: { db: Db; jobs: JobQueues; config: { webhooks: WebhookConfig } },
  now: number,
  staleAfterMs: number,
): Promise<string> {
  const overdue = await overdueDeliveries(
    s.db,
    new Date(now - staleAfterMs),
    new Date(now - staleAfterMs - attemptLeaseMs(s.config.webhooks.attemptTimeoutMs)),
    500,
  );
  for (const d of overdue) await withJobOrigin(d.trace_context, () => enqueueDelivery(s.jobs, d.id, d.attempts));
  const mailed = await mailDisabledEndpointOwners(s.db, s.jobs, new Date(now));
  const pruned = await pruneEvents(s.db, new Date(now - EVENT_RETENTION_MS), 1_000);
  return `${overdue.length} webhook deliveries re-enqueued, ${mailed} disabled-endpoint owners mailed, ${pruned} old events pruned`;
}
