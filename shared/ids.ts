import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 from a CSPRNG (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Time-ordered request ids: sortable in logs, unique without coordination. */
export function newRequestId(): string {
  return `req_${Date.now().toString(36)}${randomBase62(14)}`;
}

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function acceptClientRequestId(value: string | undefined): string | undefined {
  return value !== undefined && CLIENT_REQUEST_ID.test(value) ? value : undefined;
}
