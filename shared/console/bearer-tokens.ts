import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Short-lived bearer tokens of a console session, for a console site that is not same-site with
 * the console API (its requests carry no SameSite=Lax cookie). A token names its session and its
 * expiry and is signed with the deployment's link secret under its own context, so it is never
 * stored; each use looks the session up, so signing out or revoking the session ends it at once.
 */
export const BEARER_PREFIX = 'gwb_';
/** Long enough for a page's work between renewals, short enough that a leaked token soon dies. */
export const BEARER_TTL_MS = 15 * 60_000;

// Its own context: neither a file link nor an upload URL can pass for a session token.
const CONTEXT = 'console-session-bearer-v1\n';

function mac(payload: string, secret: Buffer): Buffer {
  return createHmac('sha256', secret).update(CONTEXT).update(payload).digest();
}

export interface BearerClaims {
  sessionId: string;
  /** Epoch ms. */
  expiresAt: number;
}

export function signBearer(claims: BearerClaims, secret: Buffer): string {
  const payload = Buffer.from(JSON.stringify([claims.sessionId, claims.expiresAt])).toString('base64url');
  return `${BEARER_PREFIX}${payload}.${mac(payload, secret).toString('base64url')}`;
}

/** The claims of a well-signed, unexpired token; undefined otherwise (compared in constant time). */
export function verifyBearer(token: string, secret: Buffer, now: number): BearerClaims | undefined {
  if (!token.startsWith(BEARER_PREFIX)) return undefined;
  const [payload = '', signature = '', extra] = token.slice(BEARER_PREFIX.length).split('.');
  if (!payload || extra !== undefined) return undefined;
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(payload, secret);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const [sessionId, expiresAt] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
    if (typeof sessionId !== 'string' || typeof expiresAt !== 'number' || expiresAt <= now) return undefined;
    return { sessionId, expiresAt };
  } catch {
    return undefined;
  }
}

/**
 * A token for a live session: BEARER_TTL_MS from `now`, never past the session's own end (a
 * renewal near that end answers a token that ends with it).
 */
export function issueBearer(
  session: { sessionId: string; expiresAt: Date },
  secret: Buffer,
  now: number,
): { token: string; expiresAt: Date } {
  const expiresAt = Math.min(now + BEARER_TTL_MS, session.expiresAt.getTime());
  return { token: signBearer({ sessionId: session.sessionId, expiresAt }, secret), expiresAt: new Date(expiresAt) };
}
