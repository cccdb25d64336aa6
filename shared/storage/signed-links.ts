import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a link grants: reading one object, for its owner, until `expiresAt`. */
export interface LinkClaims {
  objectKey: string;
  /** The owner; the route may check it against the caller when the caller is known. */
  userId: string;
  /** Epoch milliseconds; the link stops working at this instant. */
  expiresAt: number;
  /** Suggested download name for Content-Disposition. */
  filename?: string;
  /** Overrides the stored Content-Type. */
  contentType?: string;
}

interface Payload {
  k: string;
  u: string;
  e: number;
  f?: string;
  t?: string;
}

// Domain separation: a MAC made for anything else with the same secret never verifies as a link.
const CONTEXT = 'gw-link.v1.';
const MIN_SECRET_BYTES = 32;

/**
 * A compact, self-contained token `<payload>.<mac>` (both base64url): the gateway serves the object
 * without a database lookup, and nothing in the bucket is ever public.
 */
export function signLink(claims: LinkClaims, secret: string | Buffer): string {
  if (!Number.isSafeInteger(claims.expiresAt)) throw new TypeError('expiresAt must be epoch milliseconds');
  const p: Payload = { k: claims.objectKey, u: claims.userId, e: claims.expiresAt };
  if (claims.filename !== undefined) p.f = claims.filename;
  if (claims.contentType !== undefined) p.t = claims.contentType;
  const payload = Buffer.from(JSON.stringify(p)).toString('base64url');
  return `${payload}.${mac(payload, secret).toString('base64url')}`;
}

/** The claims of a genuine, unexpired token; undefined for anything else (never throws). */
export function verifyLink(token: string, secret: string | Buffer, now: number): LinkClaims | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0 || dot !== token.lastIndexOf('.')) return undefined;
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(payload, secret);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const claims = parse(payload);
  return claims && now < claims.expiresAt ? claims : undefined;
}

/** The link a client follows; `baseUrl` is PUBLIC_BASE_URL or the request's origin, without a trailing slash. */
export function linkUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/v1/files/${token}`;
}

function mac(payload: string, secret: string | Buffer): Buffer {
  if (Buffer.byteLength(secret) < MIN_SECRET_BYTES)
    throw new RangeError(`link secret must be at least ${MIN_SECRET_BYTES} bytes`);
  return createHmac('sha256', secret).update(CONTEXT).update(payload).digest();
}

function parse(payload: string): LinkClaims | undefined {
  let p: Partial<Payload>;
  try {
    p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<Payload>;
  } catch {
    return undefined;
  }
  if (typeof p.k !== 'string' || typeof p.u !== 'string' || typeof p.e !== 'number') return undefined;
  const claims: LinkClaims = { objectKey: p.k, userId: p.u, expiresAt: p.e };
  if (typeof p.f === 'string') claims.filename = p.f;
  if (typeof p.t === 'string') claims.contentType = p.t;
  return claims;
}
