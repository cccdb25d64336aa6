import type { User } from '../db/schema.js';
import { GatewayError } from '../errors.js';
import type { GatewayServices } from '../gateway/services.js';
import { consumeCode, sendCodeUnlessCooling } from './codes.js';

/**
 * The second step of a password, provider or single-sign-on sign-in (passkeys skip it). With
 * two-step verification off it passes. On, without `code`: a sign-in code is e-mailed (again, if
 * the send cooldown allows) and the answer is 401 `mfa_required`; with a wrong, expired, used or
 * exhausted code: 401 `mfa_invalid`, which the caller's guard counts toward the account lock.
 */
export async function checkSecondStep(services: GatewayServices, user: User, code: string | undefined): Promise<void> {
  if (!user.two_factor_enabled) return;
  if (code === undefined) {
    const wait = await sendCodeUnlessCooling(services, user, 'sign_in');
    const message =
      wait === undefined
        ? 'two-step verification is on: a sign-in code was e-mailed to you; send it as `code`'
        : `two-step verification is on: a sign-in code was e-mailed recently; send it as \`code\` (a new one can be sent in ${wait} s)`;
    throw new GatewayError('mfa_required', 401, message, { param: 'code' });
  }
  try {
    await consumeCode(services, user.id, 'sign_in', code);
  } catch (err) {
    if (!(err instanceof GatewayError && err.code.startsWith('verification_'))) throw err;
    const exhausted = err.code === 'verification_exhausted';
    throw new GatewayError(
      'mfa_invalid',
      401,
      exhausted
        ? 'too many wrong sign-in codes: sign in again without `code` for a fresh one'
        : 'the sign-in code is wrong or has expired',
      { param: 'code' },
    );
  }
}
