import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { User } from '../db/schema.js';
import { GatewayError } from '../errors.js';
import type { GatewayServices } from '../gateway/services.js';
import { Tickets } from './tickets.js';

const CEREMONY_MS = 5 * 60 * 1000;

interface Ceremony {
  challenge: string;
  /** The registering user; absent for a sign-in (the credential names its user). */
  userId?: string;
}

/** One answer for every refused sign-in (unknown passkey, bad signature, no user verification, closed account). */
export const PASSKEY_REFUSED =
  'the passkey was not accepted: it must be registered here and verify you (PIN, fingerprint or face)';

const invalid = (status: number, message: string) =>
  new GatewayError('passkey_invalid', status, message, { param: 'response' });

export interface PasskeyView {
  id: string;
  name: string;
  transports: string[];
  created_at: string;
  last_used_at: string | null;
}

export function passkeyView(row: {
  id: string;
  name: string;
  transports: string[];
  created_at: Date;
  last_used_at: Date | null;
}): PasskeyView {
  return {
    id: row.id,
    name: row.name,
    transports: row.transports,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
  };
}

/** WebAuthn registration and sign-in ceremonies (@simplewebauthn/server), challenges held as single-use tickets. */
export class Passkeys {
  private readonly ceremonies: Tickets<Ceremony>;

  constructor(private readonly services: GatewayServices) {
    this.ceremonies = new Tickets(services, 'webauthn', CEREMONY_MS);
  }

  private get rp() {
    return this.services.config.console.webauthn;
  }

  /** Creation options for a new passkey of `user` (its existing ones excluded), and the ceremony's id. */
  async registrationOptions(user: User) {
    const existing = await this.services.db
      .selectFrom('passkeys')
      .select(['credential_id', 'transports'])
      .where('user_id', '=', user.id)
      .execute();
    const options = await generateRegistrationOptions({
      rpName: this.rp.rpName,
      rpID: this.rp.rpId,
      userName: user.email,
      userID: new TextEncoder().encode(user.id),
      userDisplayName: user.nickname ?? user.email,
      attestationType: 'none',
      excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: c.transports })),
      // A passkey signs in alone (no password, no two-step code): it must verify its user (PIN,
      // biometric), so one that cannot is refused here rather than at every sign-in.
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      timeout: CEREMONY_MS,
    });
    const ceremony = await this.ceremonies.issue({ challenge: options.challenge, userId: user.id });
    return { ceremony_id: ceremony.id, expires_at: ceremony.expiresAt.toISOString(), options };
  }

  /** Verifies the authenticator's attestation and stores the credential → the new passkey. */
  async register(
    user: User,
    ceremonyId: string,
    response: RegistrationResponseJSON,
    name: string,
  ): Promise<PasskeyView> {
    const ceremony = await this.ceremonies.take(ceremonyId);
    if (!ceremony || ceremony.userId !== user.id)
      throw new GatewayError('passkey_invalid', 400, 'the ceremony is unknown, used or expired: ask for new options', {
        param: 'ceremony_id',
      });
    let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verification = await verifyRegistrationResponse({
        response,
        expectedChallenge: ceremony.challenge,
        expectedOrigin: this.rp.origin,
        expectedRPID: this.rp.rpId,
        requireUserVerification: true,
      });
    } catch (err) {
      throw invalid(400, `the authenticator's response was not accepted: ${(err as Error).message}`);
    }
    if (!verification.verified) throw invalid(400, "the authenticator's response was not accepted");
    const { credential } = verification.registrationInfo;
    const row = await this.services.db
      .insertInto('passkeys')
      .values({
        user_id: user.id,
        credential_id: credential.id,
        public_key: Buffer.from(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? [],
        name,
      })
      .onConflict((oc) => oc.column('credential_id').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new GatewayError('conflict', 409, 'this passkey is already registered');
    return passkeyView(row);
  }

  /** Request options for a sign-in with any passkey of this site (discoverable credentials). */
  async signInOptions() {
    const options = await generateAuthenticationOptions({
      rpID: this.rp.rpId,
      userVerification: 'required',
      timeout: CEREMONY_MS,
    });
    const ceremony = await this.ceremonies.issue({ challenge: options.challenge });
    return { ceremony_id: ceremony.id, expires_at: ceremony.expiresAt.toISOString(), options };
  }

  /** Verifies an assertion, user verification included → the passkey's user (401 `passkey_invalid` for anything wrong, alike). */
  async signIn(ceremonyId: string, response: AuthenticationResponseJSON): Promise<string> {
    const ceremony = await this.ceremonies.take(ceremonyId);
    const refused = () => invalid(401, PASSKEY_REFUSED);
    if (!ceremony || ceremony.userId) throw refused();
    const stored = await this.services.db
      .selectFrom('passkeys')
      .selectAll()
      .where('credential_id', '=', response.id)
      .executeTakeFirst();
    if (!stored) throw refused();
    let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verification = await verifyAuthenticationResponse({
        response,
        expectedChallenge: ceremony.challenge,
        expectedOrigin: this.rp.origin,
        expectedRPID: this.rp.rpId,
        credential: {
          id: stored.credential_id,
          publicKey: new Uint8Array(stored.public_key),
          counter: stored.counter,
          transports: stored.transports,
        },
        // Mere possession (a stolen or borrowed unlocked key) is not a sign-in.
        requireUserVerification: true,
      });
    } catch {
      throw refused();
    }
    if (!verification.verified) throw refused();
    // A counter that did not move forward (when the authenticator keeps one) is a cloned key: refused above by the library.
    await this.services.db
      .updateTable('passkeys')
      .set({ counter: verification.authenticationInfo.newCounter, last_used_at: new Date() })
      .where('id', '=', stored.id)
      .execute();
    return stored.user_id;
  }
}
