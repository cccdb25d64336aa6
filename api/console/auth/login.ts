import type { Middleware } from 'koa';
import { z } from 'zod';
import { checkPassword } from '../../../shared/console/login.js';
import { SignInGuard } from '../../../shared/console/sign-in-guard.js';
import { checkSecondStep } from '../../../shared/console/two-step.js';
import { GatewayError } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { readConsoleBody } from '../body.js';
import { beginSession } from './begin-session.js';
import { codeField } from './fields.js';

// Bounded so that nobody makes argon2 chew on a megabyte.
const identifier = z.string().min(1).max(320);
const password = z.string().min(1).max(1024);

export const loginSchema = z.strictObject({ identifier, password, code: codeField.optional() });
export const loginTwoStepSchema = z.strictObject({ identifier, password, code: codeField });

/**
 * POST /api/v1/auth/login `{identifier, password, code?}` and POST /api/v1/auth/login/2fa
 * `{identifier, password, code}`: the per-IP throttle, the account lock, the password, then the
 * two-step rule (401 `mfa_required` / `mfa_invalid`) — and only then a session.
 */
export function login(services: GatewayServices, twoStep = false): Middleware {
  const guard = new SignInGuard(services);
  return async (ctx) => {
    const body = await readConsoleBody(ctx, twoStep ? loginTwoStepSchema : loginSchema);
    await guard.throttleIp(ctx.ip);
    const user = await guard.guard(body.identifier, async () => {
      const user = await checkPassword(services.db, body);
      await checkSecondStep(services, user, body.code);
      return user;
    });
    if (!user.email_verified_at)
      throw new GatewayError(
        'email_unverified',
        403,
        'confirm your e-mail address first: enter the code from the sign-up mail at /api/v1/auth/register/confirm',
      );
    await beginSession(services, ctx, user);
  };
}
