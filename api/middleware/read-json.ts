import type { Context } from 'koa';
import { GatewayError, invalidJson } from '../../shared/errors.js';

export interface JsonBody {
  value: Record<string, unknown>;
  /** Size of the raw body in bytes; an upper bound on its tokens, used to price the reservation. */
  bytes: number;
}

/** Reads the body once, within `limit` bytes, and parses a JSON object from it. */
export async function readJsonObject(ctx: Context, limit: number): Promise<JsonBody> {
  const raw = await readRaw(ctx, limit);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalidJson();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidJson('request body must be a JSON object');
  return { value: value as Record<string, unknown>, bytes: raw.length };
}

const tooLarge = (limit: number) => new GatewayError('body_too_large', 413, `request body exceeds ${limit} bytes`);

async function readRaw(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) {
    ctx.req.resume(); // drain so the connection can be reused
    throw tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      ctx.req.resume();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}
