import type { Db, Trx } from './index.js';
import type { FileRow, FilesTable } from './batches-schema.js';
import type { Insertable } from 'kysely';

/** Scoped to the account: another account's file is indistinguishable from a missing one. */
export function findUserFile(db: Db | Trx, userId: string, id: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

export function insertFile(db: Db | Trx, row: Insertable<FilesTable>): Promise<FileRow> {
  return db.insertInto('files').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Newest first; `after` is the last row of the previous page. */
export function listUserFiles(
  db: Db,
  userId: string,
  limit: number,
  options: { after?: FileRow; purpose?: string; order: 'asc' | 'desc' },
): Promise<FileRow[]> {
  let query = db.selectFrom('files').selectAll().where('user_id', '=', userId);
  if (options.purpose) query = query.where('purpose', '=', options.purpose as FileRow['purpose']);
  const after = options.after;
  if (after) {
    const op = options.order === 'desc' ? '<' : '>';
    query = query.where((eb) =>
      eb.or([
        eb('created_at', op, after.created_at),
        eb.and([eb('created_at', '=', after.created_at), eb('id', op, after.id)]),
      ]),
    );
  }
  return query.orderBy('created_at', options.order).orderBy('id', options.order).limit(limit).execute();
}

export async function deleteUserFile(db: Db, userId: string, id: string): Promise<FileRow | undefined> {
  return db.deleteFrom('files').where('id', '=', id).where('user_id', '=', userId).returningAll().executeTakeFirst();
}
