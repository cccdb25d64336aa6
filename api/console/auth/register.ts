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


export const registerSchema = z.strictObject({ email: emailField, password: z.string().min(1).max(1024), nickname: z.string().trim().min(1).max(64).optional() });
export const registerConfirmSchema = z.strictObject({ email: emailField, code: codeField });

/**
 * POST /api/v1/auth/register `{email, password, nickname?}` → 202 `{expires_at, cooldown_seconds}`,
 * the same for every e-mail. A new address gets an account waiting for its `verify_email` code; an
 * unconfirmed one gets the new password and a fresh code (whoever signed up first without owning
 * the mailbox cannot keep the address); a taken one gets a notice mail and no code.
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
        await sendMail(services, { to: existing.email, subject: 'Someone tried to sign up with your address', text: 'Someone tried to create an account with this e-mail address, which already has one. If it was you, sign in or reset your password; otherwise ignore this mail.' });
        return;
      }
      const user = existing
        ? await services.db.updateTable('users').set({ password_hash: passwordHash, nickname: body.nickname ?? existing.nickname, updated_at: new Date() }).where('id', '=', existing.id).returningAll().executeTakeFirstOrThrow()
        : await services.db.insertInto('users').values({ email: body.email, password_hash: passwordHash, nickname: body.nickname ?? null, email_verified_at: null }).onConflict((oc) => oc.doNothing()).returningAll().executeTakeFirst();
      if (user) await sendCodeUnlessCooling(services, user, 'verify_email');
    });
    const terms = codeTerms(services);
    sendData(ctx, { expires_at: terms.expiresAt.toISOString(), cooldown_seconds: terms.cooldownSeconds }, 202);
  };
}

/** POST /api/v1/auth/register/confirm `{email, code}` → 201, signed in: the e-mail is confirmed. */
export function confirmRegistration(services: GatewayServices): Middleware {
  const guard = new SignInGuard(services);
  return async (ctx) => {
    const body = await readConsoleBody(ctx, registerConfirmSchema);
    await guard.throttleIp(ctx.ip);
    const user = await guard.guard(body.email, async () => {
      const user = await findUserByEmail(services.db, body.email);
      const pending = user && !user.email_verified_at ? user : undefined;
      await consumeCode(services, pending?.id ?? NOBODY, 'verify_email', body.code);
      return pending!;
    });
    const verified = await services.db.updateTable('users').set({ email_verified_at: new Date(), updated_at: new Date() }).where('id', '=', user.id).returningAll().executeTakeFirstOrThrow();
    await beginSession(services, ctx, verified, 201);
  };
}
