import { createHash } from 'node:crypto';
import { GatewayError } from '../errors.js';
import type { GatewayServices } from '../gateway/services.js';

const WINDOW_15_MIN = 15 * 60 * 1000;

const locked = (retryAfter: number) =>
  new GatewayError('account_locked', 429, `too many failed attempts: this account is locked; try again in ${retryAfter} s`, { retryAfter });

// The lock is keyed by the e-mail as typed (lower-cased), hashed so Redis holds no addresses:
// an unknown address locks exactly like a real one, so the lock tells nobody which exist.
const subjectOf = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');

/**
 * The account lock and the per-IP sign-in throttle. Wrong passwords and wrong codes — on sign-in
 * and on sensitive actions — count per e-mail; ACCOUNT_LOCK_THRESHOLD of them within
 * ACCOUNT_LOCK_WINDOW_SECONDS lock the e-mail for ACCOUNT_LOCK_SECONDS (429 `account_locked` with
 * Retry-After), whatever the password then is. A success clears the count.
 */
export class SignInGuard {
  constructor(private readonly services: GatewayServices) {}

  private keys(email: string) {
    const subject = subjectOf(email);
    return { failures: this.services.redisKeys.policy('signin-failures', subject), lock: this.services.redisKeys.policy('account-lock', subject) };
  }

  /** Every sign-in attempt from one IP: SIGNIN_IP_LIMIT per 15 minutes (429 `too_many_attempts`). */
  async throttleIp(ip: string): Promise<void> {
    const limit = this.services.config.console.signInIpLimit;
    await this.services.limiter.consume([
      {
        policy: { name: 'signin-ip', limit, windowMs: WINDOW_15_MIN, refuse: (retryAfter) => new GatewayError('too_many_attempts', 429, `too many sign-in attempts from this address; try again in ${retryAfter} s`, { retryAfter }) },
        subject: ip || 'unknown',
      },
    ]);
  }

  /** 429 `account_locked` while the e-mail is locked; else whether failures are counted against it. */
  async assertOpen(email: string): Promise<{ failures: boolean }> {
    const keys = this.keys(email);
    const replies = await this.services.redis.multi().pttl(keys.lock).exists(keys.failures).exec();
    const ttl = Number(replies?.[0]?.[1] ?? -2);
    if (ttl > 0) throw locked(Math.ceil(ttl / 1000));
    return { failures: Number(replies?.[1]?.[1] ?? 0) > 0 };
  }

  /** Counts one wrong password or code; the one that reaches the threshold locks the e-mail. */
  async recordFailure(email: string): Promise<void> {
    const { threshold, windowMs, durationMs } = this.services.config.console.lock;
    const keys = this.keys(email);
    const replies = await this.services.redis.multi().incr(keys.failures).pexpire(keys.failures, windowMs, 'NX').exec();
    const count = Number(replies?.[0]?.[1] ?? 0);
    if (count >= threshold) await this.services.redis.multi().set(keys.lock, '1', 'PX', durationMs).del(keys.failures).exec();
  }

  /**
   * Runs a check that may fail with a wrong password or code: a failure is counted (and may lock),
   * a success clears the count. The lock is checked first, so a locked account learns nothing.
   */
  async guard<T>(email: string, attempt: () => Promise<T>, counts: (err: unknown) => boolean = isGuessFailure): Promise<T> {
    const { failures } = await this.assertOpen(email);
    let result: T;
    try {
      result = await attempt();
    } catch (err) {
      if (counts(err)) await this.recordFailure(email);
      throw err;
    }
    // Only a count that exists is cleared: the common sign-in costs one Redis round trip here.
    if (failures) await this.services.redis.del(this.keys(email).failures);
    return result;
  }
}

const GUESS_FAILURES = new Set(['invalid_credentials', 'invalid_password', 'mfa_invalid', 'verification_invalid', 'verification_exhausted']);
export const isGuessFailure = (err: unknown) => err instanceof GatewayError && GUESS_FAILURES.has(err.code);
