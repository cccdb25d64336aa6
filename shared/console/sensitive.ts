import { verifyPassword } from '../accounts/passwords.js';
import type { User } from '../db/schema.js';
import { badRequest, GatewayError } from '../errors.js';
import type { GatewayServices } from '../gateway/services.js';
import { consumeCode, type SensitiveAction } from './codes.js';
import { SignInGuard } from './sign-in-guard.js';

export interface Confirmation {
  password?: string | undefined;
  code: string;
}

/**
 * Confirms a sensitive action: the current password (unless the account has none) and an unused
 * e-mailed code of that action, which is consumed. A wrong password (403 `invalid_password`) or
 * code (400 `verification_invalid` / `verification_exhausted`) counts toward the account lock;
 * a locked account is refused before anything is checked. `afterPassword` runs between the two,
 * for checks that need the password proven but must not burn the code (e.g. `password_reused`).
 */
export async function confirmSensitive(
  services: GatewayServices,
  user: User,
  action: SensitiveAction,
  given: Confirmation,
  options: { passwordParam?: string; afterPassword?: () => void | Promise<void> } = {},
): Promise<void> {
  const param = options.passwordParam ?? 'password';
  const guard = new SignInGuard(services);
  await guard.guard(user.email, async () => {
    if (user.password_hash) {
      if (given.password === undefined)
        throw badRequest(`\`${param}\` is required: confirm with your current password`, param);
      if (!(await verifyPassword(user.password_hash, given.password)))
        throw new GatewayError('invalid_password', 403, `\`${param}\` is not your current password`, { param });
    }
    await options.afterPassword?.();
    await consumeCode(services, user.id, action, given.code);
  });
}
