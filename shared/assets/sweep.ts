import type { Db } from '../db/index.js';
import type { ObjectStore } from '../storage/object-store.js';

/**
 * Reservations never confirmed, an hour past their URL's expiry, go with whatever was uploaded
 * to them (run by the maintenance job). Returns how many were removed.
 */
export async function sweepExpiredUploads(db: Db, storage: ObjectStore, now: number): Promise<number> {
  const expired = await db
    .selectFrom('asset_uploads')
    .select(['id', 'object_key'])
    .where('asset_id', 'is', null)
    .where('expires_at', '<', new Date(now - 3_600_000))
    .limit(500)
    .execute();
  for (const upload of expired) {
    await storage.delete(upload.object_key);
    await db.deleteFrom('asset_uploads').where('id', '=', upload.id).where('asset_id', 'is', null).execute();
  }
  return expired.length;
}
