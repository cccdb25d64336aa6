import type { Updateable } from 'kysely';
import type { Db, Trx } from './index.js';
import type { WebhookEndpointRow, WebhookEndpointsTable } from './webhook-schema.js';

/** Scoped to the account: another account's endpoint is indistinguishable from a missing one. */
export function findEndpoint(db: Db | Trx, userId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/**
 * Locks the endpoint's row for the rest of the transaction. Whatever changes an endpoint and its
 * deliveries together (an attempt's record, a disabling) takes this lock first, then the delivery
 * rows: two attempts of one endpoint recorded at once queue here instead of deadlocking (each
 * holding its delivery while the other's disabling ends it).
 */
export async function lockEndpoint(trx: Trx, id: string): Promise<void> {
  await trx.selectFrom('webhook_endpoints').select('id').where('id', '=', id).forUpdate().execute();
}

/** Newest first. */
export async function listEndpoints(
  db: Db,
  userId: string,
  page: number,
  pageSize: number,
): Promise<{ rows: WebhookEndpointRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export function insertEndpoint(
  db: Db,
  row: Pick<WebhookEndpointRow, 'id' | 'user_id' | 'url' | 'events' | 'description' | 'secret'>,
): Promise<WebhookEndpointRow> {
  return db.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateEndpoint(
  db: Db | Trx,
  userId: string,
  id: string,
  patch: Updateable<WebhookEndpointsTable>,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ ...patch, updated_at: new Date() })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();
}

/** Its deliveries and their attempts go with it (ON DELETE CASCADE). */
export async function deleteEndpoint(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The new secret signs from now on; the current one becomes the previous, signing beside it until `overlapUntil`. */
export function rotateEndpointSecret(
  db: Db,
  userId: string,
  id: string,
  secret: string,
  overlapUntil: Date,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      previous_secret: eb.ref('secret'),
      previous_secret_expires_at: overlapUntil,
      secret,
      updated_at: new Date(),
    }))
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();
}

/** A closed account's endpoints stop receiving (their pending deliveries end when their jobs find them disabled). */
export async function disableAccountEndpoints(trx: Trx, userId: string, now: Date): Promise<void> {
  await trx
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_reason: 'account_closed', disabled_at: now, updated_at: now })
    .where('user_id', '=', userId)
    .where('enabled', '=', true)
    .execute();
}

/** Endpoints disabled for failing whose owner has not been mailed yet (the mail is queued after the commit that disabled them). */
export function endpointsAwaitingNotice(db: Db, limit: number) {
  return db
    .selectFrom('webhook_endpoints')
    .innerJoin('users', 'users.id', 'webhook_endpoints.user_id')
    .select([
      'webhook_endpoints.id',
      'webhook_endpoints.url',
      'webhook_endpoints.failing_since',
      'webhook_endpoints.disabled_at',
      'users.email',
    ])
    .where('webhook_endpoints.disabled_reason', '=', 'failing')
    .where('webhook_endpoints.owner_notified_at', 'is', null)
    .orderBy('webhook_endpoints.disabled_at')
    .limit(limit)
    .execute();
}

export async function markOwnerNotified(db: Db, id: string, now: Date): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ owner_notified_at: now }).where('id', '=', id).execute();
}
