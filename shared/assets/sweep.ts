import type { Db } from '../db/index.js';
import type { ObjectStore } from '../storage/object-store.js';

/**
 * Reservations an hour past their URL's expiry go with whatever sits on their upload key (run by
 * the maintenance job): never-confirmed uploads, and what a still-valid S3 presigned PUT may have
 * written there after `complete` (the asset's bytes live under a key of their own; `complete`
 * answers the asset by its upload id once the reservation is gone). Returns how many were removed.
 */
export async function sweepExpiredUploads(db: Db, storage: ObjectStore, now: number): Promise<number> {
  const expired = await db
    .selectFrom('asset_uploads')
    .select((eb) => [
      'id',
      'object_key',
      // Assets completed before they had keys of their own live under their upload's key.
      eb
        .exists(
          eb
            .selectFrom('assets')
            .select('id')
            .whereRef('assets.upload_id', '=', 'asset_uploads.id')
            .whereRef('assets.object_key', '=', 'asset_uploads.object_key'),
        )
        .as('holds_asset'),
    ])
    .where('expires_at', '<', new Date(now - 3_600_000))
    .limit(500)
    .execute();
  for (const upload of expired) {
    if (!upload.holds_asset) await storage.delete(upload.object_key);
    await db.deleteFrom('asset_uploads').where('id', '=', upload.id).execute();
  }
  return expired.length;
}
