import type { Insertable } from 'kysely';
import type { Db, Trx } from './index.js';
import type { WebhookDeliveriesTable, WebhookEventsTable } from './webhook-schema.js';

/** The account's enabled endpoints subscribed to `type`; or, given `endpointId`, that endpoint of the account whatever it subscribes to. */
export async function eventTargets(trx: Trx, userId: string, type: string, endpointId?: string): Promise<string[]> {
  let query = trx.selectFrom('webhook_endpoints').select('id').where('user_id', '=', userId);
  query =
    endpointId === undefined
      ? query.where('enabled', '=', true).where((eb) => eb(eb.val<string>(type), '=', eb.fn.any('events')))
      : query.where('id', '=', endpointId);
  return (await query.execute()).map((row) => row.id);
}

/** False when the subject already has an event of this type (the partial unique index): a task ends once. */
export async function insertEvent(trx: Trx, event: Insertable<WebhookEventsTable>): Promise<boolean> {
  const inserted = await trx
    .insertInto('webhook_events')
    .values(event)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function insertDeliveries(trx: Trx, deliveries: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  if (deliveries.length > 0) await trx.insertInto('webhook_deliveries').values(deliveries).execute();
}

/** Deliveries of the subject's events not yet attempted (what to enqueue once the task is settled). */
export function unsentDeliveriesOf(db: Db, subjectId: string): Promise<Array<{ id: string; attempts: number }>> {
  return db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
    .select(['webhook_deliveries.id', 'webhook_deliveries.attempts'])
    .where('webhook_events.subject_id', '=', subjectId)
    .where('webhook_deliveries.status', '=', 'pending')
    .where('webhook_deliveries.attempts', '=', 0)
    .execute();
}

/** Deletes up to `limit` events older than `before` whose deliveries are all over (with them and their attempts). */
export async function pruneEvents(db: Db, before: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('webhook_events')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_events as e')
        .select('e.id')
        .where('e.created_at', '<', before)
        .where((w) =>
          w.not(
            w.exists(
              w
                .selectFrom('webhook_deliveries as d')
                .select('d.id')
                .whereRef('d.event_id', '=', 'e.id')
                .where('d.status', '=', 'pending'),
            ),
          ),
        )
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
