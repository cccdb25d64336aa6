import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { GatewayError, invalidJson } from '../../shared/errors.js';
import { refuseNulInJson } from '../../shared/refuse-nul.js';

export interface JsonBody {
  value: Record<string, unknown>;
  /** The body as received (forwarded as it is when nothing in it needs to change). */
  raw: Buffer;
  /** Size of the raw body in bytes; an upper bound on its tokens, used to price the reservation. */
  bytes: number;
}

/** Reads the body once, within `limit` bytes, and parses a JSON object from it. */
export function readJsonObject(ctx: Context, limit: number): Promise<JsonBody> {
  return readJsonBody(ctx.req, limit);
}

/** `readJsonObject` on the bare request (the routes that run outside Koa). */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<JsonBody> {
  const raw = await readRaw(req, limit);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalidJson();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalidJson('request body must be a JSON object');
  refuseNulInJson(raw, value);
  if (raw.length > 2 * MAX_DEPTH) refuseDeepNesting(raw);
  return { value: value as Record<string, unknown>, raw, bytes: raw.length };
}

/**
 * Nesting the gateway reads: every walker of a body (assets, images, hashes, translations) may
 * recurse, and a body nested tens of thousands deep would overflow the stack (a 500). Only a body
 * of more than 2 × MAX_DEPTH bytes can be nested deeper, so the common call is not scanned.
 */
const MAX_DEPTH = 1000;
const OPEN = new Set([0x7b, 0x5b]);
const CLOSE = new Set([0x7d, 0x5d]);

function refuseDeepNesting(raw: Buffer): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // an escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (OPEN.has(c)) {
      if (++depth > MAX_DEPTH)
        throw new GatewayError('invalid_json', 400, `request body is nested more than ${MAX_DEPTH} levels deep`);
    } else if (CLOSE.has(c)) depth--;
  }
}

const tooLarge = (limit: number) => new GatewayError('body_too_large', 413, `request body exceeds ${limit} bytes`);

// Plain listeners, left in place once the body is settled (they go with the request): an async
// iterator costs several promises per chunk, and removing four listeners costs more than a flag.
function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const declared = Number(req.headers['content-length'] || 0);
    if (declared > limit) {
      req.resume(); // drain so the connection can be reused
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        settled = true;
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.on('close', () => {
      if (settled) return;
      settled = true;
      reject(new Error('the client closed the connection before the body was complete'));
    });
    req.on('error', (err: Error) => {
      if (settled) return;
      settled = true;
      reject(err);
    });
  });
}
