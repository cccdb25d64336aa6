import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import type { AssetRow } from '../db/schema.js';
import type { ApiKeyContext } from '../keys/api-key.js';

/**
 * The assets a key may see (spec, Asset access): `own` = uploaded by this key or in the console,
 * `all` = every asset of the account, `none` = none. Out of scope is indistinguishable from missing.
 */
export function scoped(db: Db, key: ApiKeyContext | undefined, userId: string) {
  let q = db.selectFrom('assets').selectAll().where('user_id', '=', userId);
  if (key?.assetAccess === 'own')
    q = q.where((eb) => eb.or([eb('api_key_id', '=', key.id), eb('api_key_id', 'is', null)]));
  if (key?.assetAccess === 'none') q = q.where(sql<boolean>`false`);
  return q;
}

export function findAsset(
  db: Db,
  key: ApiKeyContext | undefined,
  userId: string,
  id: string,
): Promise<AssetRow | undefined> {
  return scoped(db, key, userId).where('id', '=', id).executeTakeFirst();
}

export function assetView(row: AssetRow) {
  return {
    id: row.id,
    object: 'asset' as const,
    reference: `asset://${row.id}`,
    filename: row.filename,
    content_type: row.content_type,
    size_bytes: row.size_bytes,
    width: row.width,
    height: row.height,
    sha256: row.sha256,
    created_at: row.created_at.toISOString(),
  };
}
