import { z } from 'zod';
import type { passkeyView } from '../../../shared/console/passkeys.js';
import type { publicUser } from '../../../shared/db/users.js';
import { sameType, timestamp, whole } from '../../openapi/response-fields.js';
import { dataEnvelope } from '../envelope.js';

export const userAnswer = z.strictObject({
  id: z.uuid(),
  email: z.string(),
  nickname: z.string().nullable(),
  locale: z.string().nullable(),
  region: z.string().nullable(),
  /** False for an account made through a sign-in provider until a password is set. */
  has_password: z.boolean(),
  created_at: timestamp,
});
sameType<ReturnType<typeof publicUser>, z.infer<typeof userAnswer>>(true);

/** A sign-in's answer: the session token (also the HttpOnly cookie) and the user. */
const session = z.strictObject({ token: z.string(), expires_at: timestamp, user: userAnswer });

/** An e-mailed code: valid until `expires_at`; another may be asked for after `cooldown_seconds`. */
const codeSent = z.strictObject({ expires_at: timestamp, cooldown_seconds: whole });

const liveSession = z.strictObject({
  id: z.uuid(),
  /** The session this request came with. */
  current: z.boolean(),
  created_at: timestamp,
  expires_at: timestamp,
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
});

export const passkeyAnswer = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  transports: z.array(z.string()),
  created_at: timestamp,
  last_used_at: timestamp.nullable(),
});
sameType<ReturnType<typeof passkeyView>, z.infer<typeof passkeyAnswer>>(true);

// WebAuthn's options, as @simplewebauthn/server makes them for navigator.credentials (the
// JSON forms of the W3C's PublicKeyCredentialCreationOptions and ...RequestOptions).
const credential = z.strictObject({
  id: z.string(),
  type: z.literal('public-key'),
  transports: z.array(z.enum(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'])).optional(),
});
const userVerification = z.enum(['discouraged', 'preferred', 'required']);
const creationOptions = z.strictObject({
  challenge: z.string(),
  rp: z.strictObject({ name: z.string(), id: z.string() }),
  user: z.strictObject({ id: z.string(), name: z.string(), displayName: z.string() }),
  pubKeyCredParams: z.array(z.strictObject({ alg: z.number().int(), type: z.literal('public-key') })),
  timeout: whole,
  attestation: z.enum(['none', 'indirect', 'direct', 'enterprise']),
  excludeCredentials: z.array(credential),
  authenticatorSelection: z.strictObject({
    residentKey: z.enum(['discouraged', 'preferred', 'required']),
    userVerification,
    requireResidentKey: z.boolean(),
  }),
  extensions: z.strictObject({ credProps: z.boolean() }),
  hints: z.array(z.enum(['hybrid', 'security-key', 'client-device'])),
});
const requestOptions = z.strictObject({
  rpId: z.string(),
  challenge: z.string(),
  timeout: whole,
  userVerification,
});
const ceremony = <T extends z.ZodType>(options: T) =>
  z.strictObject({
    /** Sent back with the authenticator's answer. */
    ceremony_id: z.string(),
    expires_at: timestamp,
    options,
  });

const provider = z.strictObject({ name: z.string(), display_name: z.string() });

/** The JSON answer of a provider's callback (`Accept: application/json`); a browser is redirected instead. */
const providerReturn = z.strictObject({
  provider: z.string(),
  result: z.enum(['signed_in', 'linked', 'link_pending']),
  /** A console on another site redeems it with POST /api/v1/auth/oauth/handoff. */
  ticket: z.string().optional(),
});

const identity = z.strictObject({ provider: z.string(), email: z.string().nullable(), linked_at: timestamp });

export const AUTH_RESPONSES = {
  user: dataEnvelope(userAnswer),
  session: dataEnvelope(session),
  codeSent: dataEnvelope(codeSent),
  /** Two-step verification on or off. */
  twoStep: dataEnvelope(z.strictObject({ enabled: z.boolean() })),
  sessions: dataEnvelope(z.array(liveSession)),
  /** A `gwb_` bearer token of this session, for a console on another site. */
  bearer: dataEnvelope(z.strictObject({ token: z.string(), expires_at: timestamp })),
  signedOut: dataEnvelope(z.null()),
  passkey: dataEnvelope(passkeyAnswer),
  passkeys: dataEnvelope(z.array(passkeyAnswer)),
  passkeyCreation: dataEnvelope(ceremony(creationOptions)),
  passkeyRequest: dataEnvelope(ceremony(requestOptions)),
  providers: dataEnvelope(z.array(provider)),
  providerReturn: dataEnvelope(providerReturn),
  /** Where the browser goes to link a provider. */
  providerLink: dataEnvelope(z.strictObject({ url: z.string(), expires_at: timestamp })),
  identities: dataEnvelope(z.array(identity)),
};
