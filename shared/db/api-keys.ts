import type { Db, Trx } from './index.js';
import type { ApiKeyRow, ApiKeyUpdate, NewApiKey } from './schema.js';

export type KeyWithOwner = ApiKeyRow & {
  owner_rpm_limit: number | null;
  owner_tpm_limit: number | null;
  owner_concurrency_limit: number | null;
  owner_discount_percent: string;
  owner_log_content: boolean;
};

/** A key with its owner's limits and discount: everything the hot path needs, in one query. */
export function findKeyByHash(db: Db | Trx, hash: Buffer): Promise<KeyWithOwner | undefined> {
  return keysWithOwner(db).where('k.key_hash', '=', hash).executeTakeFirst();
}

/** The same by the key's id (a job running a call for a key it was accepted with). */
export function findKeyWithOwnerById(db: Db | Trx, keyId: string): Promise<KeyWithOwner | undefined> {
  return keysWithOwner(db).where('k.id', '=', keyId).executeTakeFirst();
}

function keysWithOwner(db: Db | Trx) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .selectAll('k')
    .select([
      'u.rpm_limit as owner_rpm_limit',
      'u.tpm_limit as owner_tpm_limit',
      'u.concurrency_limit as owner_concurrency_limit',
      'u.discount_percent as owner_discount_percent',
      'u.log_content as owner_log_content',
    ]);
}

/** Scoped to its owner: another user's key id is indistinguishable from a missing one. */
export function findUserKey(db: Db | Trx, userId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', keyId).where('user_id', '=', userId).executeTakeFirst();
}

export function findKeyById(db: Db | Trx, keyId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
}

export function insertKey(db: Db | Trx, key: NewApiKey): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(key).returningAll().executeTakeFirstOrThrow();
}

/** Revokes every key of an account; the caller then publishes the owner change (publishOwnerChange) so every process drops them. */
export function revokeUserKeys(db: Db | Trx, userId: string, now: Date) {
  return db
    .updateTable('api_keys')
    .set({ status: 'revoked', revoked_at: now, updated_at: now })
    .where('user_id', '=', userId)
    .where('status', '<>', 'revoked')
    .executeTakeFirst();
}

export function updateUserKey(
  db: Db | Trx,
  userId: string,
  keyId: string,
  patch: ApiKeyUpdate,
): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ ...patch, updated_at: new Date() })
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();
}

export async function listUserKeys(db: Db | Trx, userId: string, page: number, pageSize: number) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('api_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
