import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

// authenticatorData flags: user present, user verified, attested credential data included.
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  userHandle: string;
  signCount: number;
}

/**
 * A software authenticator (a platform passkey in all but hardware): P-256 (ES256) credentials,
 * real `none` attestations and real signed assertions, as a browser's navigator.credentials
 * would hand them to the page, in the JSON form the server library reads.
 */
export class SoftAuthenticator {
  readonly credentials: Credential[] = [];

  constructor(readonly origin: string) {}

  /**
   * navigator.credentials.create() for the server's creation options. `userVerified: false` is an
   * authenticator that proved presence only (a security key without a PIN, or one that skipped it).
   */
  create(
    options: { challenge: string; rp: { id?: string }; user: { id: string } },
    overrides: { userVerified?: boolean } = {},
  ) {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const credential: Credential = { id: randomBytes(32), privateKey, userHandle: options.user.id, signCount: 0 };
    this.credentials.push(credential);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([UP | (overrides.userVerified === false ? 0 : UV) | AT]),
      Buffer.alloc(4),
      Buffer.alloc(16),
      idLength,
      credential.id,
      Buffer.from(isoCBOR.encode(cose)),
    ]);
    const clientData = Buffer.from(
      JSON.stringify({
        type: 'webauthn.create',
        challenge: options.challenge,
        origin: this.origin,
        crossOrigin: false,
      }),
    );
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]) as never,
    );
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientData),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get() with `credential` (default: the newest) for the server's request options; `userVerified: false` leaves the UV flag unset. */
  get(
    options: { challenge: string; rpId?: string },
    credential = this.credentials.at(-1)!,
    overrides: { origin?: string; userVerified?: boolean } = {},
  ) {
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    credential.signCount++;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.signCount);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([UP | (overrides.userVerified === false ? 0 : UV)]),
      counter,
    ]);
    const clientData = Buffer.from(
      JSON.stringify({
        type: 'webauthn.get',
        challenge: options.challenge,
        origin: overrides.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), credential.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
