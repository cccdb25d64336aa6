import type { Db } from '../db/index.js';
import type { ObjectStore } from '../storage/object-store.js';

/**
 * Images the gateway fetched for an upstream (rehost.ts) go once their link has expired: nobody can
 * read them after that. Run by the maintenance job. Returns how many were removed.
 */
export async function sweepFetchedObjects(db: Db, storage: ObjectStore, now: number): Promise<number> {
  const expired = await db
    .selectFrom('fetched_objects')
    .select('object_key')
    .where('expires_at', '<', new Date(now))
    .limit(500)
    .execute();
  for (const { object_key: key } of expired) {
    await storage.delete(key);
    await db.deleteFrom('fetched_objects').where('object_key', '=', key).execute();
  }
  return expired.length;
}
