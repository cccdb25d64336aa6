import type { Db, Trx } from './index.js';
import type { User } from './schema.js';

export function findUserByEmail(db: Db | Trx, email: string): Promise<User | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

export function findUserById(db: Db | Trx, id: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function insertUser(db: Db | Trx, email: string, passwordHash: string | null): Promise<User> {
  return db.insertInto('users').values({ email, password_hash: passwordHash }).returningAll().executeTakeFirstOrThrow();
}

export async function settledBalance(db: Db | Trx, userId: string): Promise<number | undefined> {
  const row = await db.selectFrom('users').select('balance_micro_usd').where('id', '=', userId).executeTakeFirst();
  return row?.balance_micro_usd;
}

/** The public part of a user, as the console shows it. */
export function publicUser(user: User) {
  return {
    id: user.id,
    email: user.email,
    nickname: user.nickname,
    locale: user.locale,
    region: user.region,
    has_password: user.password_hash !== null,
    created_at: user.created_at.toISOString(),
  };
}
