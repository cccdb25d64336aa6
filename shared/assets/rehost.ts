import type { Db } from '../db/index.js';
import { randomBase62 } from '../ids.js';
import { fieldPath } from '../validation.js';
import { linkUrl, signLink } from '../storage/signed-links.js';
import type { ObjectStore } from '../storage/object-store.js';
import { fetchImages, type ImageFetchLimits, type ImageRef } from './fetch-images.js';
import type { SafeFetchOptions } from './safe-fetch.js';

export interface RehostContext {
  db: Db;
  storage: ObjectStore;
  linkSecret: Buffer;
  baseUrl: string;
  ttlMs: number;
  now: number;
  limits: ImageFetchLimits;
  /** Tests only: the fetcher's options beyond the defaults. */
  fetchOptions?: Partial<SafeFetchOptions>;
}

type Path = (string | number)[];

// A request for a media model names images by URL wherever its upstream reads them: `{url}` parts,
// `image_url` strings, and the fields a model-specific body passes through (`image`,
// `reference_images: [...]`, …). Every string that is a whole http(s) URL is one, except in the
// fields that hold the client's words.
const TEXT_FIELDS = new Set(['text', 'prompt', 'negative_prompt', 'model', 'user', 'instructions']);
const WHOLE_URL = /^https?:\/\/\S+$/i;

function urls(value: unknown, path: Path, found: Path[]): void {
  if (typeof value === 'string') {
    if (WHOLE_URL.test(value) && !TEXT_FIELDS.has(String(path.at(-1)))) found.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      // An array's items are named by the array's field (`reference_images[0]` is an image, `stop[0]` is not text here).
      if (typeof v !== 'string' || !TEXT_FIELDS.has(String(path.at(-1)))) urls(v, [...path, i], found);
    });
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) urls(v, [...path, k], found);
  }
}

function at(root: unknown, path: Path): Record<string | number, unknown> {
  let parent = root as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  return parent;
}

/** The external image URLs of a request: what rehosting would fetch. */
export function externalImageUrls(request: unknown): ImageRef[] {
  const found: Path[] = [];
  urls(request, [], found);
  return found.map((path) => ({ url: String(at(request, path)[path.at(-1)!]), field: fieldPath(path) }));
}

/**
 * For a model whose catalog entry says it does not fetch URLs itself (`accepts_urls: false`):
 * every external image URL of the request (see URL_FIELDS) is fetched by the gateway through the
 * safe fetcher (within the IMAGE_FETCH_* limits, images only), kept in object storage, and
 * replaced by a signed link of the gateway's. Run only for an admitted call. Each kept object is
 * recorded with its link's expiry and swept after it (sweep-fetched.ts). A URL the fetcher refuses
 * answers 400 naming the field.
 */
export async function rehostExternalImages<T>(ctx: RehostContext, userId: string, request: T): Promise<T> {
  const found: Path[] = [];
  urls(request, [], found);
  if (found.length === 0) return request;
  const fetched = await fetchImages(externalImageUrls(request), ctx.limits, ctx.fetchOptions);
  const out = structuredClone(request) as T;
  const expiresAt = ctx.now + ctx.ttlMs;
  for (const [i, path] of found.entries()) {
    const image = fetched[i]!;
    // One object per fetch, never shared: the sweep can remove it once its own link expired.
    const key = `fetched/${userId}/${randomBase62(24)}`;
    // Recorded before it is stored: a process that dies in between leaves a row to sweep, never an object nobody knows of.
    await ctx.db
      .insertInto('fetched_objects')
      .values({ object_key: key, user_id: userId, expires_at: new Date(expiresAt) })
      .execute();
    await ctx.storage.put(key, image.bytes, { contentType: image.contentType });
    at(out, path)[path.at(-1)!] = linkUrl(
      ctx.baseUrl,
      signLink({ objectKey: key, userId, expiresAt, contentType: image.contentType }, ctx.linkSecret),
    );
  }
  return out;
}
