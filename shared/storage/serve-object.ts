import type { Readable } from 'node:stream';
import { RangeNotSatisfiable, type ObjectStore } from './object-store.js';
import type { LinkClaims } from './signed-links.js';

export interface ObjectResponse {
  /** 404: the route renders its own not-found error; 416 carries `Content-Range: bytes *\/size`. */
  status: 200 | 206 | 404 | 416;
  headers: Record<string, string>;
  /** Absent for HEAD, 404 and 416. */
  body?: Readable;
}

type Wanted = { start: number; end?: number } | { suffix: number };

/**
 * Answers a verified signed link: the whole object, or one `bytes=` range with 206, so video
 * players can seek. Koa-free; the route copies status, headers and body onto its response.
 */
export async function serveObject(
  store: ObjectStore,
  claims: LinkClaims,
  rangeHeader: string | undefined,
  method: 'GET' | 'HEAD' = 'GET',
): Promise<ObjectResponse> {
  // Range is defined for GET only; HEAD answers for the whole object.
  const wanted = method === 'GET' ? parseRange(rangeHeader) : undefined;
  if (method === 'HEAD') {
    const info = await store.head(claims.objectKey);
    return info
      ? { status: 200, headers: objectHeaders(claims, info.contentType, info.size) }
      : { status: 404, headers: {} };
  }
  if (!wanted) {
    const found = await store.get(claims.objectKey);
    if (!found) return { status: 404, headers: {} };
    return { status: 200, headers: objectHeaders(claims, found.contentType, found.length), body: found.body };
  }
  // The size is needed first: for suffix ranges, and to answer 416 without opening a body.
  const info = await store.head(claims.objectKey);
  if (!info) return { status: 404, headers: {} };
  const range = resolve(wanted, info.size);
  if (!range) return unsatisfiable(info.size);
  try {
    const found = await store.get(claims.objectKey, range);
    if (!found) return { status: 404, headers: {} };
    const headers = objectHeaders(claims, found.contentType, found.length);
    headers['content-range'] = found.contentRange ?? `bytes ${range.start}-${range.end}/${found.size}`;
    return { status: 206, headers, body: found.body };
  } catch (err) {
    // The object shrank between head and get.
    if (err instanceof RangeNotSatisfiable) return unsatisfiable(err.size ?? info.size);
    throw err;
  }
}

/** A single `bytes=a-b`, `bytes=a-` or `bytes=-n`; anything else (multiple ranges, garbage) is ignored per RFC 9110. */
export function parseRange(header: string | undefined): Wanted | undefined {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  const a = m[1] === '' ? undefined : Number(m[1]);
  const b = m[2] === '' ? undefined : Number(m[2]);
  if ((a !== undefined && !Number.isSafeInteger(a)) || (b !== undefined && !Number.isSafeInteger(b))) return undefined;
  if (a === undefined) return { suffix: b ?? 0 };
  if (b !== undefined && b < a) return undefined;
  return b === undefined ? { start: a } : { start: a, end: b };
}

function resolve(wanted: Wanted, size: number): { start: number; end: number } | undefined {
  if ('suffix' in wanted) {
    return wanted.suffix > 0 && size > 0 ? { start: Math.max(0, size - wanted.suffix), end: size - 1 } : undefined;
  }
  if (wanted.start >= size) return undefined;
  return { start: wanted.start, end: Math.min(wanted.end ?? size - 1, size - 1) };
}

function unsatisfiable(size: number): ObjectResponse {
  return { status: 416, headers: { 'content-range': `bytes */${size}`, 'accept-ranges': 'bytes' } };
}

// Files come from users and providers but are served from the gateway's own origin: only media
// renders inline, everything else downloads, and nothing may run script or be sniffed into HTML.
const INLINE = /^(video\/|audio\/|image\/(png|jpeg|gif|webp|avif)$)/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: a quoted parameter must not hold control characters
const TOKEN = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;\s*[\w!#$&^.+-]+=("[^"\\\x00-\x1f]*"|[\w!#$&^.+-]+))*$/;

function objectHeaders(claims: LinkClaims, storedType: string, length: number): Record<string, string> {
  const candidate = claims.contentType ?? storedType;
  const contentType = TOKEN.test(candidate) ? candidate : 'application/octet-stream';
  const disposition = INLINE.test(contentType.split(';')[0]!.trim().toLowerCase()) ? 'inline' : 'attachment';
  return {
    'content-type': contentType,
    'content-length': String(length),
    'content-disposition': contentDisposition(disposition, claims.filename),
    'accept-ranges': 'bytes',
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; media-src 'self'; sandbox",
  };
}

/** RFC 6266: an ASCII `filename` for old clients and the exact name in `filename*`. */
export function contentDisposition(type: 'inline' | 'attachment', filename: string | undefined): string {
  if (!filename) return type;
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
