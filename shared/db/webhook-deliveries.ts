import type { Db, Trx } from './index.js';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from './webhook-schema.js';
import type { TraceCarrier } from '../telemetry/spans.js';

/** A delivery with what an attempt needs: its endpoint and the event's id, type and body. */
export interface DeliveryTarget {
  delivery: WebhookDeliveryRow;
  endpoint: WebhookEndpointRow;
  event: { id: string; type: string; payload: string };
}

export async function findDeliveryTarget(db: Db, deliveryId: string): Promise<DeliveryTarget | undefined> {
  const delivery = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .executeTakeFirst();
  if (!delivery) return undefined;
  const [endpoint, event] = await Promise.all([
    db.selectFrom('webhook_endpoints').selectAll().where('id', '=', delivery.endpoint_id).executeTakeFirst(),
    db
      .selectFrom('webhook_events')
      .select(['id', 'type', 'payload'])
      .where('id', '=', delivery.event_id)
      .executeTakeFirst(),
  ]);
  return endpoint && event ? { delivery, endpoint, event } : undefined;
}

/**
 * Starts an attempt when the delivery is pending, due, and has no attempt in flight: none started,
 * one older than any attempt can last (`leaseMs`: its worker died), or one started by an earlier
 * run of this same job (BullMQ runs a job again only once the earlier run's lock lapsed, or after it
 * threw: that run is over). Two jobs for one delivery never send at the same time. Returns the
 * attempts made with this one.
 */
export async function claimAttempt(
  db: Db,
  id: string,
  job: string,
  now: Date,
  leaseMs: number,
): Promise<number | undefined> {
  const row = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), attempt_started_at: now, attempt_job: job, updated_at: now }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', new Date(now.getTime() + DUE_SLACK_MS))
    .where((eb) =>
      eb.or([
        eb('attempt_started_at', 'is', null),
        eb('attempt_started_at', '<', new Date(now.getTime() - leaseMs)),
        eb('attempt_job', '=', job),
      ]),
    )
    .returning('attempts')
    .executeTakeFirst();
  return row?.attempts;
}

// BullMQ's delays are not exact to the millisecond: a job this early is on time.
const DUE_SLACK_MS = 1_000;

export async function insertAttempt(trx: Trx, attempt: Omit<WebhookAttemptRow, 'id'>): Promise<void> {
  await trx.insertInto('webhook_delivery_attempts').values(attempt).execute();
}

/** When the delivery's first attempt since `since` (its window's start) was made; undefined when none was recorded. */
export async function firstAttemptSince(trx: Trx, deliveryId: string, since: Date): Promise<Date | undefined> {
  const row = await trx
    .selectFrom('webhook_delivery_attempts')
    .select((eb) => eb.fn.min('attempted_at').as('first'))
    .where('delivery_id', '=', deliveryId)
    .where('attempted_at', '>=', since)
    .executeTakeFirst();
  return (row?.first as Date | null | undefined) ?? undefined;
}

/**
 * Records where a delivery stands after an attempt. `onlyIfPending`: leaves alone a delivery that
 * ended meanwhile (its endpoint disabled while the attempt ran), so a failure never revives it.
 * Returns whether the row was updated.
 */
export async function settleDelivery(
  db: Db | Trx,
  id: string,
  patch: Pick<WebhookDeliveryRow, 'status' | 'next_attempt_at' | 'last_error'> & { delivered_at?: Date },
  now: Date,
  onlyIfPending = false,
): Promise<boolean> {
  let query = db
    .updateTable('webhook_deliveries')
    .set({ ...patch, attempt_started_at: null, attempt_job: null, updated_at: now })
    .where('id', '=', id);
  if (onlyIfPending) query = query.where('status', '=', 'pending');
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Frees a delivery that ended while its attempt ran from that attempt's claim (see claimAttempt). */
export async function releaseAttempt(db: Db | Trx, id: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ attempt_started_at: null, attempt_job: null })
    .where('id', '=', id)
    .where('status', '<>', 'pending')
    .execute();
}

/** Ends every pending delivery of an endpoint that was just disabled (an attempt in flight frees its claim when it ends). */
export async function failPendingDeliveries(trx: Trx, endpointId: string, reason: string, now: Date): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null, last_error: reason, updated_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

/** The endpoint's deliveries, newest first, with each one's event type. */
export async function listDeliveries(
  db: Db,
  userId: string,
  endpointId: string,
  page: number,
  pageSize: number,
): Promise<{ rows: Array<WebhookDeliveryRow & { event_type: string }>; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
      .selectAll('webhook_deliveries')
      .select('webhook_events.type as event_type')
      .where('webhook_deliveries.user_id', '=', userId)
      .where('webhook_deliveries.endpoint_id', '=', endpointId)
      .orderBy('webhook_deliveries.created_at', 'desc')
      .orderBy('webhook_deliveries.id', 'desc')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function findDelivery(
  db: Db,
  userId: string,
  endpointId: string,
  id: string,
): Promise<(WebhookDeliveryRow & { event_type: string }) | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
    .selectAll('webhook_deliveries')
    .select('webhook_events.type as event_type')
    .where('webhook_deliveries.id', '=', id)
    .where('webhook_deliveries.user_id', '=', userId)
    .where('webhook_deliveries.endpoint_id', '=', endpointId)
    .executeTakeFirst();
}

/** The latest `perDelivery` attempts of each delivery, oldest first within each. */
export async function attemptsOf(
  db: Db,
  deliveryIds: readonly string[],
  perDelivery: number,
): Promise<Map<string, WebhookAttemptRow[]>> {
  const byDelivery = new Map<string, WebhookAttemptRow[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('webhook_delivery_attempts')
        .selectAll()
        .select((w) =>
          w.fn
            .agg<number>('row_number')
            .over((o) => o.partitionBy('delivery_id').orderBy('id', 'desc'))
            .as('recent'),
        )
        .where('delivery_id', 'in', deliveryIds)
        .as('a'),
    )
    .selectAll()
    .where('recent', '<=', perDelivery)
    .orderBy('id')
    .execute();
  for (const { recent: _recent, ...row } of rows) {
    const list = byDelivery.get(row.delivery_id) ?? [];
    list.push(row);
    byDelivery.set(row.delivery_id, list);
  }
  return byDelivery;
}

/** Makes a delivered or failed delivery pending again, due now, with a new 3-day window; false when it is pending already. */
export async function reopenDelivery(
  db: Db,
  id: string,
  now: Date,
  retryUntil: Date,
): Promise<WebhookDeliveryRow | undefined> {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, retry_until: retryUntil, last_error: null, updated_at: now })
    .where('id', '=', id)
    .where('status', '<>', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/**
 * Pending deliveries due before `before` with no live attempt (none, or one started before
 * `startedBefore`), oldest first: those whose job may have been lost; with their event's trace context.
 */
export function overdueDeliveries(
  db: Db,
  before: Date,
  startedBefore: Date,
  limit: number,
): Promise<Array<{ id: string; attempts: number; trace_context: TraceCarrier | null }>> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.attempts', 'e.trace_context'])
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<', before)
    .where((eb) => eb.or([eb('d.attempt_started_at', 'is', null), eb('d.attempt_started_at', '<', startedBefore)]))
    .orderBy('d.next_attempt_at')
    .limit(limit)
    .execute();
}
