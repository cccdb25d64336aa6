import { GatewayError } from '../errors.js';

const invalidTags = (message: string) => new GatewayError('invalid_tags', 400, message, { param: 'X-Service-Tags' });

const MAX_TAGS = 10;
const MAX_TAG_BYTES = 64;

/**
 * `X-Service-Tags: a,b,c`: up to 10 tags of up to 64 bytes. Request tags are added to the key's
 * own tags (duplicates once). Tags only label usage; they never change routing or price.
 */
export function callTags(header: string | undefined, keyTags: readonly string[]): string[] {
  if (!header) return [...keyTags];
  const requested = header
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (requested.length > MAX_TAGS) throw invalidTags(`at most ${MAX_TAGS} tags per request`);
  for (const tag of requested) {
    if (Buffer.byteLength(tag) > MAX_TAG_BYTES)
      throw invalidTags(`tag '${tag.slice(0, 16)}…' exceeds ${MAX_TAG_BYTES} bytes`);
    // node:http refuses a raw NUL in a header already; this keeps it out of Postgres whatever the transport.
    if (tag.includes('\0')) throw invalidTags('a tag must not contain a NUL character');
  }
  return [...new Set([...keyTags, ...requested])];
}
