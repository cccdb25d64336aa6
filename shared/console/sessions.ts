import { randomBytes } from 'node:crypto';
import type { Db } from '../db/index.js';
import { findLiveSession, findLiveSessionById, insertSession, revokeSession } from '../db/sessions.js';
import type { User } from '../db/schema.js';
import { findUserById } from '../db/users.js';
import { hashSecret } from '../keys/secret.js';
import { verifyBearer } from './bearer-tokens.js';
import { UUID_PATTERN } from '../ids.js';

// A prefix no API key has: a bearer token is recognisable (and rejectable) without a query.
const TOKEN_PREFIX = 'gws_';
const MAX_USER_AGENT = 512;

export interface SessionOrigin {
  ip: string | null;
  userAgent: string | null;
}

export interface StartedSession {
  /** The one credential of the session, sent as the cookie or as a bearer token. Stored only hashed. */
  token: string;
  sessionId: string;
  expiresAt: Date;
}

export interface LiveSession {
  sessionId: string;
  expiresAt: Date;
  user: User;
}

export async function startSession(
  db: Db,
  userId: string,
  ttlHours: number,
  origin: SessionOrigin,
): Promise<StartedSession> {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const row = await insertSession(db, {
    userId,
    tokenHash: hashSecret(token),
    expiresAt: new Date(Date.now() + ttlHours * 3_600_000),
    ip: origin.ip,
    userAgent: origin.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
  });
  return { token, sessionId: row.id, expiresAt: row.expires_at };
}

/** The session and its user, or undefined when the token is unknown, revoked or expired. */
export async function findSession(db: Db, token: string): Promise<LiveSession | undefined> {
  if (!token.startsWith(TOKEN_PREFIX)) return undefined;
  const session = await findLiveSession(db, hashSecret(token));
  if (!session) return undefined;
  const user = await findUserById(db, session.user_id);
  return user && { sessionId: session.session_id, expiresAt: session.expires_at, user };
}

/**
 * The session a short-lived bearer token (./bearer-tokens.ts) was issued for, while both the token
 * and the session live; undefined otherwise.
 */
export async function findSessionByBearer(
  db: Db,
  token: string,
  secret: Buffer,
  now: number,
): Promise<LiveSession | undefined> {
  const claims = verifyBearer(token, secret, now);
  if (!claims || !UUID_PATTERN.test(claims.sessionId)) return undefined;
  const session = await findLiveSessionById(db, claims.sessionId);
  if (!session) return undefined;
  const user = await findUserById(db, session.user_id);
  return user && { sessionId: session.session_id, expiresAt: session.expires_at, user };
}

export async function endSession(db: Db, sessionId: string): Promise<void> {
  await revokeSession(db, sessionId);
}

/** API keys (`sk-`, private-protocol `ak-`) are never a console credential. */
export function isApiKeySecret(secret: string): boolean {
  return secret.startsWith('sk-') || secret.startsWith('ak-');
}
