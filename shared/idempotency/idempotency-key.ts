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

/** A piece of the output, queued between the values still to write. */
class Token {
  constructor(readonly text: string) {}
}
const COMMA = new Token(',');
const CLOSE_ARRAY = new Token(']');
const CLOSE_OBJECT = new Token('}');

/**
 * JSON with object keys sorted (and undefined members left out), written with an explicit stack: a
 * body nested thousands deep (JSON.parse reads it) is hashed, not a stack overflow.
 */
function canonicalJson(root: unknown): string {
  let out = '';
  const todo: unknown[] = [root];
  while (todo.length > 0) {
    const item = todo.pop();
    if (item instanceof Token) {
      out += item.text;
    } else if (Array.isArray(item)) {
      out += '[';
      todo.push(CLOSE_ARRAY);
      for (let i = item.length - 1; i >= 0; i--) {
        todo.push(item[i]);
        if (i > 0) todo.push(COMMA);
      }
    } else if (item !== null && typeof item === 'object') {
      out += '{';
      const entries = Object.entries(item as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      todo.push(CLOSE_OBJECT);
      for (let i = entries.length - 1; i >= 0; i--) {
        todo.push(entries[i]![1], new Token(`${JSON.stringify(entries[i]![0])}:`));
        if (i > 0) todo.push(COMMA);
      }
    } else {
      out += JSON.stringify(item) ?? '';
    }
  }
  return out;
}
