import type { Db } from '../db/index.js';
import type { User } from '../db/schema.js';
import { findUserByEmail, findUserById } from '../db/users.js';
import { GatewayError } from '../errors.js';
import { oauthFailed, type ProviderIdentity } from './oidc.js';

const identityTaken = () =>
  new GatewayError('identity_already_linked', 409, 'this third-party account is already linked to another user');
const providerTaken = (provider: string) =>
  new GatewayError('provider_already_linked', 409, `an account of '${provider}' is already linked; unlink it first`);

/** 409 `provider_already_linked` when the user already has an account of this provider. */
export async function assertProviderFree(db: Db, userId: string, provider: string): Promise<void> {
  const linked = await db
    .selectFrom('user_identities')
    .select('id')
    .where('user_id', '=', userId)
    .where('provider', '=', provider)
    .executeTakeFirst();
  if (linked) throw providerTaken(provider);
}

/**
 * The user a provider sign-in names: the one the identity is linked to; else a new password-less
 * account for the provider's verified e-mail. An unlinked identity whose e-mail already has an
 * account is refused, never merged: linking is done from the signed-in account (password + code).
 */
export async function userForSignIn(db: Db, identity: ProviderIdentity): Promise<User> {
  const linked = await db
    .selectFrom('user_identities')
    .select('user_id')
    .where('provider', '=', identity.provider)
    .where('subject', '=', identity.subject)
    .executeTakeFirst();
  if (linked) {
    const user = await findUserById(db, linked.user_id);
    if (user && !user.closed_at) return user;
  }
  if (!identity.email || !identity.emailVerified)
    throw oauthFailed('the provider did not share a verified e-mail address, which a new account needs');
  if (await findUserByEmail(db, identity.email)) {
    throw new GatewayError(
      'identity_email_in_use',
      409,
      'an account with this e-mail already exists: sign in to it and link the provider from its settings',
    );
  }
  return db.transaction().execute(async (trx) => {
    const user = await trx
      .insertInto('users')
      .values({ email: identity.email!, password_hash: null, email_verified_at: new Date() })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('user_identities')
      .values({
        user_id: user.id,
        provider: identity.provider,
        subject: identity.subject,
        email: identity.email ?? null,
      })
      .execute();
    return user;
  });
}

/** Links the identity to the user who started the link: 409 when it, or another of its provider, is taken. */
export async function linkIdentity(db: Db, userId: string, identity: ProviderIdentity): Promise<void> {
  const owner = await db
    .selectFrom('user_identities')
    .select(['user_id'])
    .where('provider', '=', identity.provider)
    .where('subject', '=', identity.subject)
    .executeTakeFirst();
  if (owner) {
    if (owner.user_id === userId) return;
    throw identityTaken();
  }
  await assertProviderFree(db, userId, identity.provider);
  try {
    await db
      .insertInto('user_identities')
      .values({
        user_id: userId,
        provider: identity.provider,
        subject: identity.subject,
        email: identity.email ?? null,
      })
      .execute();
  } catch (err) {
    // A concurrent link won the race: the constraint names which one.
    const constraint = (err as { constraint?: string }).constraint;
    if (constraint === 'user_identities_subject') throw identityTaken();
    if (constraint === 'user_identities_one_per_provider') throw providerTaken(identity.provider);
    throw err;
  }
}
