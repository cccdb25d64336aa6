import type { Trx } from '../db/index.js';
import type { TaskRow } from '../db/schema.js';
import { eventTargets, insertDeliveries, insertEvent } from '../db/webhook-events.js';
import { randomBase62 } from '../ids.js';
import { jobTraceCarrier } from '../telemetry/spans.js';
import { eventPayload, newEventId, taskEvent, type EventSubject, type WebhookEventType } from './events.js';
import { RETRY_WINDOW_MS } from './retry-schedule.js';

export interface NewEvent {
  userId: string;
  type: WebhookEventType;
  subject: EventSubject;
  createdAt: Date;
}

/** Every enabled endpoint of the account subscribed to the type, or one endpoint whatever it subscribes to (a test). */
export type EventTarget = { subscribers: true } | { endpointId: string };

/**
 * The outbox write: the event and one pending delivery per target endpoint, in the caller's
 * transaction — the one that makes the state change the event announces, so neither exists
 * without the other. Nothing is written when no endpoint listens (most accounts have none), nor
 * when this subject already has an event of this type (a task ends once). Returns the deliveries;
 * their jobs are enqueued after the commit (enqueue.ts), or by the maintenance sweep.
 */
export async function recordEvent(trx: Trx, event: NewEvent, target: EventTarget): Promise<string[]> {
  const endpoints = await eventTargets(
    trx,
    event.userId,
    event.type,
    'endpointId' in target ? target.endpointId : undefined,
  );
  if (endpoints.length === 0) return [];
  const id = newEventId();
  const written = await insertEvent(trx, {
    id,
    user_id: event.userId,
    type: event.type,
    subject_id: event.subject.id,
    payload: eventPayload(id, event.type, event.createdAt, event.subject),
    created_at: event.createdAt,
    trace_context: jobTraceCarrier() ?? null,
  });
  if (!written) return [];
  // Due at once; retried for 3 days from the event (the domain's time, as every later decision reads it).
  const now = event.createdAt;
  const deliveries = endpoints.map((endpointId) => ({
    id: `whd_${randomBase62(24)}`,
    event_id: id,
    endpoint_id: endpointId,
    user_id: event.userId,
    next_attempt_at: now,
    retry_until: new Date(now.getTime() + RETRY_WINDOW_MS),
    created_at: now,
    updated_at: now,
  }));
  await insertDeliveries(trx, deliveries);
  return deliveries.map((d) => d.id);
}

/** The event of a task that has just ended (endTask, in the transaction that ended it). */
export async function recordTaskEnd(trx: Trx, task: TaskRow): Promise<void> {
  const event = taskEvent(task.kind, task.id, task.status);
  if (!event) return;
  await recordEvent(
    trx,
    { userId: task.user_id, type: event.type, subject: event.subject, createdAt: task.finished_at ?? new Date() },
    { subscribers: true },
  );
}
