import type { Middleware } from 'koa';
import { z } from 'zod';
import { assertStrongPassword } from '../../../shared/accounts/password-policy.js';
import { hashPassword } from '../../../shared/accounts/passwords.js';
import { codeTerms, consumeCode, sendCodeUnlessCooling, sendMail } from '../../../shared/console/codes.js';
import { SignInGuard } from '../../../shared/console/sign-in-guard.js';
import { findUserByEmail } from '../../../shared/db/users.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { readConsoleBody } from '../body.js';
import { sendData } from '../envelope.js';
import { beginSession } from './begin-session.js';
import { codeField, emailField, NOBODY } from './fields.js';
import { inBackground } from './in-background.js';

const passwordField = z.string().min(1).max(1024);

export const registerSchema = z.strictObject({
  email: emailField,
  password: passwordField,
  nickname: z.string().trim().min(1).max(64).optional(),
});
export const registerConfirmSchema = z.strictObject({ email: emailField, code: codeField, password: passwordField });

/**
 * POST /api/v1/auth/register `{email, password, nickname?}` → 202 `{expires_at, cooldown_seconds}`,
 * the same for every e-mail. A new address gets an account waiting for its `verify_email` code; an
 * unconfirmed one gets a fresh code and nothing else: whoever signed up without owning the mailbox
 * can neither keep the address nor set the password its owner will sign in with (the password is
 * chosen again at confirmation, by whoever holds the code). A taken one gets a notice mail and no code.
 */
export function register(services: GatewayServices): Middleware {
  const guard = new SignInGuard(services);
  return async (ctx) => {
    const body = await readConsoleBody(ctx, registerSchema);
    await guard.throttleIp(ctx.ip);
    assertStrongPassword(body.password, body.email, 'password');
    const passwordHash = await hashPassword(body.password);
    inBackground(services, 'sign-up', async () => {
      const existing = await findUserByEmail(services.db, body.email);
      if (existing?.email_verified_at) {
        await sendMail(services, {
          to: existing.email,
          subject: 'Someone tried to sign up with your address',
          text: 'Someone tried to create an account with this e-mail address, which already has one. If it was you, sign in or reset your password; otherwise ignore this mail.',
        });
        return;
      }
      const user =
        existing ??
        (await services.db
          .insertInto('users')
          .values({
            email: body.email,
            password_hash: passwordHash,
            nickname: body.nickname ?? null,
            email_verified_at: null,
          })
          .onConflict((oc) => oc.doNothing())
          .returningAll()
          .executeTakeFirst());
      if (user) await sendCodeUnlessCooling(services, user, 'verify_email');
    });
    const terms = codeTerms(services);
    sendData(ctx, { expires_at: terms.expiresAt.toISOString(), cooldown_seconds: terms.cooldownSeconds }, 202);
  };
}

/**
 * POST /api/v1/auth/register/confirm `{email, code, password}` → 201, signed in: the e-mail is
 * confirmed and `password` becomes the account's password — the code's holder owns the mailbox,
 * so theirs is the password that counts, whatever another sign-up for the address had set.
 */
export function confirmRegistration(services: GatewayServices): Middleware {
  const guard = new SignInGuard(services);
  return async (ctx) => {
    const body = await readConsoleBody(ctx, registerConfirmSchema);
    await guard.throttleIp(ctx.ip);
    assertStrongPassword(body.password, body.email, 'password');
    const user = await guard.guard(body.email, async () => {
      const user = await findUserByEmail(services.db, body.email);
      const pending = user && !user.email_verified_at ? user : undefined;
      await consumeCode(services, pending?.id ?? NOBODY, 'verify_email', body.code, { anonymous: true });
      return pending!;
    });
    const now = new Date();
    const verified = await services.db
      .updateTable('users')
      .set({ password_hash: await hashPassword(body.password), email_verified_at: now, updated_at: now })
      .where('id', '=', user.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await beginSession(services, ctx, verified, 201);
  };
}
