import { createHash } from 'node:crypto';
import { GatewayError, isGatewayError } from '../errors.js';
import { fieldPath } from '../validation.js';
import { linkUrl, signLink } from '../storage/signed-links.js';
import type { ObjectStore } from '../storage/object-store.js';
import { FORWARD_MAX_BYTES } from './forwarded.js';
import { safeFetch, type SafeFetchOptions } from './safe-fetch.js';

export interface RehostContext {
  storage: ObjectStore;
  linkSecret: Buffer;
  baseUrl: string;
  ttlMs: number;
  now: number;
  /** Tests only: the fetcher's options beyond the defaults. */
  fetchOptions?: Partial<SafeFetchOptions>;
}

function urls(value: unknown, path: (string | number)[], found: Array<(string | number)[]>): void {
  if (Array.isArray(value)) value.forEach((v, i) => urls(v, [...path, i], found));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'url' && typeof v === 'string' && /^https?:\/\//i.test(v)) found.push([...path, k]);
      else urls(v, [...path, k], found);
    }
  }
}

/**
 * For a model whose catalog entry says it does not fetch URLs itself (`accepts_urls: false`):
 * every external image URL of the request (a `url` field) is fetched by the gateway through the
 * safe fetcher (at most 10 MiB, images only), kept in object storage, and replaced by a signed
 * link of the gateway's. A URL the fetcher refuses answers 400 naming the field.
 */
export async function rehostExternalImages<T>(ctx: RehostContext, userId: string, request: T): Promise<T> {
  const found: Array<(string | number)[]> = [];
  urls(request, [], found);
  if (found.length === 0) return request;
  const out = structuredClone(request) as T;
  for (const path of found) {
    let parent = out as Record<string | number, unknown>;
    for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
    const last = path.at(-1)!;
    const fetched = await safeFetch(String(parent[last]), { maxBytes: FORWARD_MAX_BYTES, timeoutMs: 15_000, accept: ['image/'], ...ctx.fetchOptions }).catch((err: unknown) => {
      throw isGatewayError(err) ? new GatewayError(err.code, err.status, err.message, { param: fieldPath(path) }) : err;
    });
    const key = `fetched/${userId}/${createHash('sha256').update(fetched.bytes).digest('hex')}`;
    await ctx.storage.put(key, fetched.bytes, { contentType: fetched.contentType });
    parent[last] = linkUrl(ctx.baseUrl, signLink({ objectKey: key, userId, expiresAt: ctx.now + ctx.ttlMs, contentType: fetched.contentType }, ctx.linkSecret));
  }
  return out;
}
