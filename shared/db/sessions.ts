import type { Db, Trx } from './index.js';

export function insertSession(
  db: Db | Trx,
  s: { userId: string; tokenHash: Buffer; expiresAt: Date; ip: string | null; userAgent: string | null },
) {
  return db
    .insertInto('console_sessions')
    .values({ user_id: s.userId, token_hash: s.tokenHash, expires_at: s.expiresAt, ip: s.ip, user_agent: s.userAgent })
    .returning(['id', 'expires_at'])
    .executeTakeFirstOrThrow();
}

/** A live session with its user, or undefined when unknown, revoked or expired. */
export function findLiveSession(db: Db | Trx, tokenHash: Buffer) {
  return db
    .selectFrom('console_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id as session_id', 's.expires_at', 'u.id as user_id'])
    .where('s.token_hash', '=', tokenHash)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', new Date())
    .executeTakeFirst();
}

/** A live session by its id (a signed bearer token names it), or undefined when revoked or expired. */
export function findLiveSessionById(db: Db | Trx, sessionId: string) {
  return db
    .selectFrom('console_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id as session_id', 's.expires_at', 'u.id as user_id'])
    .where('s.id', '=', sessionId)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', new Date())
    .executeTakeFirst();
}

export function revokeSession(db: Db | Trx, sessionId: string) {
  return db.updateTable('console_sessions').set({ revoked_at: new Date() }).where('id', '=', sessionId).execute();
}

/** The user's live sessions, newest first. */
export function listLiveSessions(db: Db | Trx, userId: string) {
  return db
    .selectFrom('console_sessions')
    .select(['id', 'created_at', 'expires_at', 'ip', 'user_agent'])
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', new Date())
    .orderBy('created_at', 'desc')
    .execute();
}

/** Revokes the user's own session `sessionId`; false when it is not theirs or not live. */
export async function revokeOwnSession(db: Db | Trx, userId: string, sessionId: string): Promise<boolean> {
  const result = await db
    .updateTable('console_sessions')
    .set({ revoked_at: new Date() })
    .where('id', '=', sessionId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Revokes every live session of the user, but `keep` when given. */
export function revokeUserSessions(db: Db | Trx, userId: string, keep?: string) {
  let query = db
    .updateTable('console_sessions')
    .set({ revoked_at: new Date() })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (keep) query = query.where('id', '<>', keep);
  return query.execute();
}
