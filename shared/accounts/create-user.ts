import type { Db } from '../db/index.js';
import { findUserByEmail, insertUser } from '../db/users.js';
import type { User } from '../db/schema.js';
import { badRequest, GatewayError } from '../errors.js';
import { hashPassword } from './passwords.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createUser(db: Db, email: string, password: string | null): Promise<User> {
  if (!EMAIL.test(email)) throw badRequest('not a valid e-mail address', 'email');
  if (password !== null && password.length < 8) throw badRequest('must be at least 8 characters', 'password');
  if (await findUserByEmail(db, email))
    throw new GatewayError('invalid_request', 409, `a user with e-mail ${email} exists`);
  return insertUser(db, email, password === null ? null : await hashPassword(password));
}
