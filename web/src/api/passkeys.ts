import { unwrap, type Api } from './client';
import type { User } from './models';

/**
 * The two passkey ceremonies, with the browser's own JSON forms of WebAuthn
 * (PublicKeyCredential.parse…FromJSON / toJSON): the gateway hands out and takes exactly those.
 */
export async function signInWithPasskey(api: Api): Promise<User> {
  const start = await unwrap<{ ceremony_id: string; options: PublicKeyCredentialRequestOptionsJSON }>(
    api.POST('/api/v1/auth/passkeys/login/options'),
  );
  const credential = (await navigator.credentials.get({
    publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(start.options),
  })) as PublicKeyCredential | null;
  if (!credential) throw new Error('No passkey was chosen.');
  const session = await unwrap<{ user: User }>(
    api.POST('/api/v1/auth/passkeys/login', {
      body: { ceremony_id: start.ceremony_id, response: assertion(credential.toJSON() as AuthenticationResponseJSON) },
    }),
  );
  return session.user;
}

export async function addPasskey(api: Api, confirm: { password: string; code: string }, name: string): Promise<void> {
  const start = await unwrap<{ ceremony_id: string; options: PublicKeyCredentialCreationOptionsJSON }>(
    api.POST('/api/v1/auth/passkeys/register/options', { body: confirm }),
  );
  const credential = (await navigator.credentials.create({
    publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(start.options),
  })) as PublicKeyCredential | null;
  if (!credential) throw new Error('The passkey was not created.');
  await unwrap(
    api.POST('/api/v1/auth/passkeys/register', {
      body: {
        ceremony_id: start.ceremony_id,
        response: attestation(credential.toJSON() as RegistrationResponseJSON),
        ...(name.trim() && { name: name.trim() }),
      },
    }),
  );
}

// The credential's JSON field by field: the DOM's interfaces carry no index signature, the
// generated body types (zod's loose objects) do.
function assertion(j: AuthenticationResponseJSON) {
  const r = j.response;
  return {
    id: j.id,
    rawId: j.rawId,
    type: 'public-key' as const,
    clientExtensionResults: { ...j.clientExtensionResults },
    response: {
      clientDataJSON: r.clientDataJSON,
      authenticatorData: r.authenticatorData,
      signature: r.signature,
      ...(r.userHandle && { userHandle: r.userHandle }),
    },
  };
}

function attestation(j: RegistrationResponseJSON) {
  const r = j.response;
  return {
    id: j.id,
    rawId: j.rawId,
    type: 'public-key' as const,
    clientExtensionResults: { ...j.clientExtensionResults },
    response: {
      clientDataJSON: r.clientDataJSON,
      attestationObject: r.attestationObject,
      ...(r.transports && { transports: r.transports }),
    },
  };
}
