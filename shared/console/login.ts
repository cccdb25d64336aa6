import { randomBytes } from 'node:crypto';
import type { Db } from '../db/index.js';
import type { User } from '../db/schema.js';
import { findUserByEmail } from '../db/users.js';
import { GatewayError } from '../errors.js';
import { hashPassword, verifyPassword } from '../accounts/passwords.js';

export interface PasswordLogin {
  /** The account's e-mail, matched case-insensitively. */
  identifier: string;
  password: string;
}

// A hash of a password nobody knows, made with the same parameters as real ones: an unknown
// e-mail (or a password-less account) costs one argon2 verification too, so timing does not
// tell whether an account exists. Started at import so that the first login does not pay for it.
const dummyHash = hashPassword(randomBytes(32).toString('base64url'));
dummyHash.catch(() => {}); // awaited (and so reported) by the first login that needs it

const invalidCredentials = () => new GatewayError('invalid_credentials', 401, 'wrong e-mail or password');

/**
 * The first step of a sign-in: the user whose password matches, or 401 `invalid_credentials`
 * with the same message whatever was wrong. Later steps (account lock, two-step verification)
 * run on the returned user before a session is started.
 */
export async function checkPassword(db: Db, login: PasswordLogin): Promise<User> {
  const user = await findUserByEmail(db, login.identifier.trim());
  const hashed = user?.password_hash ?? (await dummyHash);
  const matches = await verifyPassword(hashed, login.password);
  if (!user?.password_hash || !matches) throw invalidCredentials();
  return user;
}
