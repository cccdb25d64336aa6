import { createHash } from 'node:crypto';
import { badRequest } from '../errors.js';

const PRINTABLE_ASCII = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

/** How long a key's first result is replayed; then it is purged and free again. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** `Idempotency-Key`: 1-255 printable ASCII characters (no leading or trailing space), or absent. */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  if (!PRINTABLE_ASCII.test(header)) throw badRequest('must be 1-255 printable ASCII characters', 'Idempotency-Key');
  return header;
}

/** A hash of the request that does not depend on key order or white space. */
export function requestHash(body: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(body)).digest();
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
