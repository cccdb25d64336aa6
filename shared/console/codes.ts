import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { GatewayError } from '../errors.js';
import { randomBase62 } from '../ids.js';
import type { GatewayServices } from '../gateway/services.js';

/** The sensitive actions, as the spec's `sensitive-code` enum names them. */
export const SENSITIVE_ACTIONS = [
  'change_password',
  'close_account',
  'add_passkey',
  'remove_passkey',
  'two_factor',
  'link_provider',
  'unlink_provider',
  'withdrawal',
] as const;
export type SensitiveAction = (typeof SENSITIVE_ACTIONS)[number];

/** Every action a code confirms (the sensitive ones and those the flows send themselves); a code for one never confirms another. */
export const CODE_ACTIONS = [...SENSITIVE_ACTIONS, 'sign_in', 'verify_email', 'reset_password'] as const;
export type CodeAction = (typeof CODE_ACTIONS)[number];

export const CODE_DIGITS = 8;
/** Wrong tries one code survives; then a fresh code is needed. */
export const CODE_MAX_ATTEMPTS = 5;

const SUBJECTS: Record<CodeAction, string> = {
  sign_in: 'Your sign-in code',
  change_password: 'Your code to change your password',
  close_account: 'Your code to close your account',
  add_passkey: 'Your code to add a passkey',
  remove_passkey: 'Your code to remove a passkey',
  two_factor: 'Your code to change two-step verification',
  link_provider: 'Your code to link a sign-in provider',
  unlink_provider: 'Your code to unlink a sign-in provider',
  withdrawal: 'Your code to withdraw your commission',
  verify_email: 'Your code to confirm your e-mail address',
  reset_password: 'Your code to reset your password',
};

/** Codes are low-entropy: stored as an HMAC under the deployment's secret, so a database dump does not yield them offline. */
function codeHash(secret: Buffer, userId: string, action: CodeAction, code: string): Buffer {
  return createHmac('sha256', secret).update(`verification-code.v1\0${userId}\0${action}\0${code}`).digest();
}

function cooldownRefusal(retryAfter: number): GatewayError {
  return new GatewayError(
    'verification_cooldown',
    429,
    `a code for this action was sent recently; ask again in ${retryAfter} s`,
    {
      retryAfter,
      headers: {
        'X-RateLimit-Limit-Requests': '1',
        'X-RateLimit-Remaining-Requests': '0',
        'X-RateLimit-Reset-Requests': String(retryAfter),
      },
    },
  );
}

export interface SentCode {
  expiresAt: Date;
  cooldownSeconds: number;
}

/** What `sendCode` answers, without sending: for the flows that must not tell whether an account exists. */
export function codeTerms(services: GatewayServices): SentCode {
  const { ttlMs, cooldownMs } = services.config.console.codes;
  return { expiresAt: new Date(services.clock.now() + ttlMs), cooldownSeconds: cooldownMs / 1000 };
}

/**
 * Sends a fresh code for (user, action) by e-mail (the `mail` job): CODE_DIGITS random digits from
 * a CSPRNG, valid VERIFICATION_CODE_TTL_SECONDS, replacing any earlier unused one. At most one per
 * VERIFICATION_COOLDOWN_SECONDS per (user, action): sooner answers 429 `verification_cooldown` with
 * Retry-After and X-RateLimit-*.
 */
export async function sendCode(
  services: GatewayServices,
  user: { id: string; email: string },
  action: CodeAction,
): Promise<SentCode> {
  const { ttlMs, cooldownMs } = services.config.console.codes;
  await services.limiter.consume([
    {
      policy: { name: 'code-cooldown', limit: 1, windowMs: cooldownMs, refuse: cooldownRefusal },
      subject: `${user.id}:${action}`,
    },
  ]);
  const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
  const now = new Date(services.clock.now());
  const expiresAt = new Date(now.getTime() + ttlMs);
  await services.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('verification_codes')
      .set({ used_at: now })
      .where('user_id', '=', user.id)
      .where('action', '=', action)
      .where('used_at', 'is', null)
      .execute();
    await trx
      .insertInto('verification_codes')
      .values({
        user_id: user.id,
        action,
        code_hash: codeHash(services.linkSecret, user.id, action, code),
        created_at: now,
        expires_at: expiresAt,
      })
      .execute();
  });
  const text = `${SUBJECTS[action]}: ${code}\n\nIt works once, for ${Math.round(ttlMs / 60_000)} minutes. If you did not ask for it, ignore this mail.`;
  await sendMail(services, { to: user.email, subject: SUBJECTS[action], text });
  return { expiresAt, cooldownSeconds: cooldownMs / 1000 };
}

/**
 * sendCode for the flows that answer the same whether or not a code went out (sign-in, sign-up,
 * reset): within the cooldown nothing is sent. → undefined when sent, else the seconds to wait.
 */
export async function sendCodeUnlessCooling(
  services: GatewayServices,
  user: { id: string; email: string },
  action: CodeAction,
): Promise<number | undefined> {
  try {
    await sendCode(services, user, action);
    return undefined;
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'verification_cooldown') return err.retryAfter ?? 1;
    throw err;
  }
}

/** Queues one mail (the `mail` job retries a refusing SMTP server; nobody waits for it). */
export async function sendMail(
  services: GatewayServices,
  mail: { to: string; subject: string; text: string },
): Promise<void> {
  await services.jobs.enqueue('mail', mail, { jobId: `mail-${randomBase62(20)}` });
}

/**
 * Consumes the code for (user, action): true once, for the latest live code of that action. Each
 * try (right or wrong) is taken from the code's CODE_MAX_ATTEMPTS atomically before the comparison,
 * so parallel guesses cannot test more codes than that; a wrong one also counts toward the account
 * lock (the caller's guard). Past the last try the code is dead: 400 `verification_exhausted`, a
 * fresh code is needed. A missing, expired, used or wrong code, or one of another action, answers
 * 400 `verification_invalid`. `anonymous` (flows of someone not signed in, whose address may have
 * no account): every failure answers the same `verification_invalid`, so that "exhausted" does
 * not tell an account with a pending code from an address without one.
 */
export async function consumeCode(
  services: GatewayServices,
  userId: string,
  action: CodeAction,
  code: string,
  options: { anonymous?: boolean } = {},
): Promise<void> {
  const now = new Date(services.clock.now());
  const invalid = () =>
    new GatewayError(
      'verification_invalid',
      400,
      options.anonymous
        ? 'the code is wrong, has expired or was tried too often: ask for a fresh one if it keeps failing'
        : 'the code is wrong or has expired',
      { param: 'code' },
    );
  const exhausted = () =>
    options.anonymous
      ? invalid()
      : new GatewayError('verification_exhausted', 400, 'too many wrong codes: ask for a fresh one', { param: 'code' });
  const latest = services.db
    .selectFrom('verification_codes')
    .select('id')
    .where('user_id', '=', userId)
    .where('action', '=', action)
    .where('used_at', 'is', null)
    .orderBy('created_at', 'desc')
    .limit(1);
  const live = await services.db
    .updateTable('verification_codes')
    .set({ attempts: sql<number>`attempts + 1` })
    .where('id', '=', latest)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', CODE_MAX_ATTEMPTS)
    .returning(['id', 'code_hash', 'attempts'])
    .executeTakeFirst();
  if (!live) {
    if (options.anonymous) throw invalid();
    const dead = await services.db
      .selectFrom('verification_codes')
      .select(['attempts', 'expires_at'])
      .where('id', '=', latest)
      .executeTakeFirst();
    throw dead && dead.expires_at > now && dead.attempts >= CODE_MAX_ATTEMPTS ? exhausted() : invalid();
  }
  const expected = codeHash(services.linkSecret, userId, action, code);
  if (!timingSafeEqual(expected, live.code_hash)) throw live.attempts >= CODE_MAX_ATTEMPTS ? exhausted() : invalid();
  // Single use, also against a concurrent second use of the same code.
  const used = await services.db
    .updateTable('verification_codes')
    .set({ used_at: now })
    .where('id', '=', live.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(used.numUpdatedRows) !== 1) throw invalid();
}
