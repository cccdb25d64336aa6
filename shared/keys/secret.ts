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

// A key migrated from the older system: its own secret (kept hashed), of either form.
const IMPORTABLE = /^(sk|ak)-[A-Za-z0-9_-]{16,200}$/;

/** A migrated key's own secret, checked and hashed like a generated one (only its hash is stored). */
export function importedKeySecret(key: string): NewKeySecret {
  if (!IMPORTABLE.test(key))
    throw new Error('an imported key is sk- or ak- followed by 16-200 letters, digits, - or _');
  return { key, hash: hashSecret(key), prefix: key.slice(0, PREFIX_LENGTH), last4: key.slice(-4) };
}

/** Keys and session tokens are stored only as SHA-256: they are high-entropy, so no slow hash is needed. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}
