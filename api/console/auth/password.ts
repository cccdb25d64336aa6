import type { Middleware } from 'koa';
import { z } from 'zod';
import { assertStrongPassword } from '../../../shared/accounts/password-policy.js';
import { hashPassword, verifyPassword } from '../../../shared/accounts/passwords.js';
import { verifyCaptcha } from '../../../shared/console/captcha.js';
import { codeTerms, consumeCode, sendCodeUnlessCooling } from '../../../shared/console/codes.js';
import { confirmSensitive } from '../../../shared/console/sensitive.js';
import { SignInGuard } from '../../../shared/console/sign-in-guard.js';
import { revokeUserKeys } from '../../../shared/db/api-keys.js';
import { revokeUserSessions } from '../../../shared/db/sessions.js';
import { findUserByEmail } from '../../../shared/db/users.js';
import { GatewayError } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { publishOwnerChange } from '../../../shared/keys/key-cache.js';
import { readConsoleBody } from '../body.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';
import { codeField, emailField, NOBODY } from './fields.js';
import { inBackground } from './in-background.js';

const newPassword = z.string().min(1).max(1024);
const reused = () =>
  new GatewayError('password_reused', 400, '`new_password` is your current password; choose a different one', {
    param: 'new_password',
  });

export const passwordChangeSchema = z.strictObject({
  current_password: z.string().min(1).max(1024).optional(),
  new_password: newPassword,
  code: codeField,
});
export const resetRequestSchema = z.strictObject({ email: emailField, captcha_token: z.string().min(1).max(4096) });
export const resetConfirmSchema = z.strictObject({
  email: emailField,
  code: codeField,
  new_password: newPassword,
  /** Whoever took the password may have made keys with it: revoked unless the owner says otherwise. */
  revoke_api_keys: z.boolean().default(true),
});

/**
 * POST /api/v1/auth/password/change `{current_password, new_password, code}` → 204. A
 * `change_password` code; the current password unless the account has none (its first password
 * then needs the code alone). Every other session is revoked; this one stays.
 */
export function changePassword(services: GatewayServices): Middleware {
  return async (ctx) => {
    const body = await readConsoleBody(ctx, passwordChangeSchema);
    const { user, session } = signedIn(ctx);
    assertStrongPassword(body.new_password, user.email);
    await confirmSensitive(
      services,
      user,
      'change_password',
      { password: body.current_password, code: body.code },
      {
        passwordParam: 'current_password',
        afterPassword: () => {
          if (body.current_password !== undefined && body.current_password === body.new_password) throw reused();
        },
      },
    );
    await services.db
      .updateTable('users')
      .set({ password_hash: await hashPassword(body.new_password), updated_at: new Date() })
      .where('id', '=', user.id)
      .execute();
    await revokeUserSessions(services.db, user.id, session.sessionId);
    ctx.status = 204;
  };
}

/**
 * POST /api/v1/auth/password/reset/request `{email, captcha_token}` → 202 `{expires_at,
 * cooldown_seconds}` for every e-mail, known or not; the code (if the account exists and the send
 * cooldown allows) is sent after the answer, so the answer's timing tells nothing either.
 */
export function requestPasswordReset(services: GatewayServices): Middleware {
  const guard = new SignInGuard(services);
  return async (ctx) => {
    const body = await readConsoleBody(ctx, resetRequestSchema);
    // Throttled first: every captcha check is an outbound call, and must not be one an attacker can repeat at will.
    await guard.throttleIp(ctx.ip);
    await verifyCaptcha(services, body.captcha_token, ctx.ip);
    inBackground(services, 'password reset mail', async () => {
      const user = await findUserByEmail(services.db, body.email);
      if (!user || !user.email_verified_at) return;
      await sendCodeUnlessCooling(services, user, 'reset_password');
    });
    const terms = codeTerms(services);
    sendData(ctx, { expires_at: terms.expiresAt.toISOString(), cooldown_seconds: terms.cooldownSeconds }, 202);
  };
}

/**
 * POST /api/v1/auth/password/reset/confirm `{email, code, new_password, revoke_api_keys?}` → 204;
 * every session of the account is revoked, and every API key too unless `revoke_api_keys` is
 * false (dropped by every process at once). An unknown e-mail answers exactly as a wrong code does.
 */
export function confirmPasswordReset(services: GatewayServices): Middleware {
  const guard = new SignInGuard(services);
  return async (ctx) => {
    const body = await readConsoleBody(ctx, resetConfirmSchema);
    await guard.throttleIp(ctx.ip);
    assertStrongPassword(body.new_password, body.email);
    const user = await guard.guard(body.email, async () => {
      const user = await findUserByEmail(services.db, body.email);
      await consumeCode(services, user?.email_verified_at ? user.id : NOBODY, 'reset_password', body.code, {
        anonymous: true,
      });
      return user!;
    });
    if (await verifyPassword(user.password_hash, body.new_password)) throw reused();
    const passwordHash = await hashPassword(body.new_password);
    const now = new Date();
    await services.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('users')
        .set({ password_hash: passwordHash, updated_at: now })
        .where('id', '=', user.id)
        .execute();
      await revokeUserSessions(trx, user.id);
      if (body.revoke_api_keys) await revokeUserKeys(trx, user.id, now);
    });
    if (body.revoke_api_keys) await publishOwnerChange(services.redis, services.redisKeys.keyInvalidation, user.id);
    ctx.status = 204;
  };
}
