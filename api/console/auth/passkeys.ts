import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { PASSKEY_REFUSED, Passkeys, passkeyView } from '../../../shared/console/passkeys.js';
import { confirmSensitive } from '../../../shared/console/sensitive.js';
import { assertAnotherWayIn } from '../../../shared/console/sign-in-methods.js';
import { SignInGuard } from '../../../shared/console/sign-in-guard.js';
import { findUserById } from '../../../shared/db/users.js';
import { GatewayError, notFound } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { UUID_PATTERN } from '../../../shared/ids.js';
import { readConsoleBody } from '../body.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';
import { beginSession } from './begin-session.js';
import { confirmation } from './fields.js';

const b64url = z
  .string()
  .max(65_536)
  .regex(/^[A-Za-z0-9_-]*={0,2}$/, 'must be base64url');
const ceremonyId = z.string().min(1).max(64);
// The browser's PublicKeyCredential JSON: its own fields are checked by the library; extra ones
// (authenticatorAttachment, clientExtensionResults…) vary by browser and are kept.
const attestation = z.looseObject({
  id: b64url.min(1),
  rawId: b64url.min(1),
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: b64url,
    attestationObject: b64url,
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
  clientExtensionResults: z.looseObject({}).default({}),
});
const assertion = z.looseObject({
  id: b64url.min(1),
  rawId: b64url.min(1),
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: b64url,
    authenticatorData: b64url,
    signature: b64url,
    userHandle: b64url.optional(),
  }),
  clientExtensionResults: z.looseObject({}).default({}),
});

export const passkeyOptionsSchema = confirmation;
export const passkeyRegisterSchema = z.strictObject({
  ceremony_id: ceremonyId,
  response: attestation,
  name: z.string().trim().min(1).max(64).optional(),
});
export const passkeySignInSchema = z.strictObject({ ceremony_id: ceremonyId, response: assertion });

/** POST /api/v1/auth/passkeys/register/options `{password, code}` (an `add_passkey` code) → `{ceremony_id, expires_at, options}`. */
export function passkeyRegistrationOptions(services: GatewayServices): Middleware {
  const passkeys = new Passkeys(services);
  return async (ctx) => {
    const body = await readConsoleBody(ctx, passkeyOptionsSchema);
    const { user } = signedIn(ctx);
    await confirmSensitive(services, user, 'add_passkey', body);
    sendData(ctx, await passkeys.registrationOptions(user));
  };
}

/** POST /api/v1/auth/passkeys/register `{ceremony_id, response, name?}` → 201 the passkey. */
export function registerPasskey(services: GatewayServices): Middleware {
  const passkeys = new Passkeys(services);
  return async (ctx) => {
    const body = await readConsoleBody(ctx, passkeyRegisterSchema);
    const { user } = signedIn(ctx);
    const view = await passkeys.register(
      user,
      body.ceremony_id,
      body.response as unknown as RegistrationResponseJSON,
      body.name ?? 'Passkey',
    );
    sendData(ctx, view, 201);
  };
}

/** GET /api/v1/auth/passkeys: the signed-in user's passkeys. */
export function listPasskeys(services: GatewayServices): Middleware {
  return async (ctx) => {
    const rows = await services.db
      .selectFrom('passkeys')
      .selectAll()
      .where('user_id', '=', signedIn(ctx).user.id)
      .orderBy('created_at')
      .execute();
    sendData(ctx, rows.map(passkeyView));
  };
}

/** POST /api/v1/auth/passkeys/{id}/remove `{password, code}` (a `remove_passkey` code) → 204; another user's passkey → 404. */
export function removePasskey(services: GatewayServices): Middleware {
  return async (ctx) => {
    const id = String(ctx.params.id);
    const body = await readConsoleBody(ctx, confirmation);
    const { user } = signedIn(ctx);
    const own = UUID_PATTERN.test(id)
      ? await services.db
          .selectFrom('passkeys')
          .select('id')
          .where('id', '=', id)
          .where('user_id', '=', user.id)
          .executeTakeFirst()
      : undefined;
    if (!own) throw notFound('no such passkey');
    await assertAnotherWayIn(services.db, user, { passkeyId: id });
    await confirmSensitive(services, user, 'remove_passkey', body);
    await services.db.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', user.id).execute();
    ctx.status = 204;
  };
}

/** POST /api/v1/auth/passkeys/login/options → `{ceremony_id, expires_at, options}` for a discoverable-credential sign-in. */
export function passkeySignInOptions(services: GatewayServices): Middleware {
  const passkeys = new Passkeys(services);
  const guard = new SignInGuard(services);
  return async (ctx) => {
    await readConsoleBody(ctx, z.strictObject({}));
    await guard.throttleIp(ctx.ip);
    sendData(ctx, await passkeys.signInOptions());
  };
}

/** POST /api/v1/auth/passkeys/login `{ceremony_id, response}` → a session; no two-step code (the passkey is the second factor). */
export function passkeySignIn(services: GatewayServices): Middleware {
  const passkeys = new Passkeys(services);
  const guard = new SignInGuard(services);
  return async (ctx) => {
    const body = await readConsoleBody(ctx, passkeySignInSchema);
    await guard.throttleIp(ctx.ip);
    const userId = await passkeys.signIn(body.ceremony_id, body.response as unknown as AuthenticationResponseJSON);
    const user = await findUserById(services.db, userId);
    if (!user || user.closed_at) throw new GatewayError('passkey_invalid', 401, PASSKEY_REFUSED);
    await beginSession(services, ctx, user);
  };
}
