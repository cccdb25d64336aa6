import { createHash } from 'node:crypto';
import { randomBase62 } from '../ids.js';

export type KeyKind = 'standard' | 'private';

const KEY_BODY_LENGTH = 48;
const PREFIX_LENGTH = 8;

export interface NewKeySecret {
  key: string;
  hash: Buffer;
  prefix: string;
  last4: string;
}

/** `sk-` (or `ak-` for the private protocol) and 48 base62 characters from a CSPRNG: ~285 bits. */
export function generateKeySecret(kind: KeyKind = 'standard'): NewKeySecret {
  const key = `${kind === 'private' ? 'ak-' : 'sk-'}${randomBase62(KEY_BODY_LENGTH)}`;
  return { key, hash: hashSecret(key), prefix: key.slice(0, PREFIX_LENGTH), last4: key.slice(-4) };
}

/** Keys and session tokens are stored only as SHA-256: they are high-entropy, so no slow hash is needed. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}
