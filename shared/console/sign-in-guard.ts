import { createHash } from 'node:crypto';
import { GatewayError } from '../errors.js';
import { readLua } from '../redis/read-lua.js';
import type { GatewayServices } from '../gateway/services.js';

const WINDOW_15_MIN = 15 * 60 * 1000;

const locked = (retryAfter: number) =>
  new GatewayError(
    'account_locked',
    429,
    `too many failed attempts: this account is locked; try again in ${retryAfter} s`,
    { retryAfter },
  );

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
    return {
      failures: this.services.redisKeys.policy('signin-failures', subject),
      lock: this.services.redisKeys.policy('account-lock', subject),
    };
  }

  /** Every sign-in attempt from one IP: SIGNIN_IP_LIMIT per 15 minutes (429 `too_many_attempts`). */
  async throttleIp(ip: string): Promise<void> {
    const limit = this.services.config.console.signInIpLimit;
    await this.services.limiter.consume([
      {
        policy: {
          name: 'signin-ip',
          limit,
          windowMs: WINDOW_15_MIN,
          refuse: (retryAfter) =>
            new GatewayError(
              'too_many_attempts',
              429,
              `too many sign-in attempts from this address; try again in ${retryAfter} s`,
              { retryAfter },
            ),
        },
        subject: ip || 'unknown',
      },
    ]);
  }

  /**
   * Runs a check that may fail with a wrong password or code: a failure is counted (and may lock),
   * a success clears the count. The try is counted before the check, atomically with the lock test
   * (gwSignInAttempt), so parallel guesses cannot run more checks than the threshold allows: once
   * the tries in flight would reach it, the next waits as a locked account does. A locked account
   * learns nothing, and an error that is not a wrong guess gives its try back.
   */
  async guard<T>(
    email: string,
    attempt: () => Promise<T>,
    counts: (err: unknown) => boolean = isGuessFailure,
  ): Promise<T> {
    const { threshold, windowMs, durationMs } = this.services.config.console.lock;
    const keys = this.keys(email);
    const [state, value] = (await this.services.redis.gwSignInAttempt(
      keys.failures,
      keys.lock,
      windowMs,
      threshold,
    )) as [number, number];
    if (state === LOCKED) throw locked(Math.max(1, Math.ceil(value / 1000)));
    let result: T;
    try {
      result = await attempt();
    } catch (err) {
      if (!counts(err)) await this.services.redis.gwSignInRelease(keys.failures);
      else if (value >= threshold)
        await this.services.redis.multi().set(keys.lock, '1', 'PX', durationMs).del(keys.failures).exec();
      throw err;
    }
    await this.services.redis.del(keys.failures);
    return result;
  }
}

const LOCKED = 1;

/** A try counted before its check, atomically with the lock test (lua/sign-in-attempt.lua). */
export const SIGN_IN_ATTEMPT = readLua(import.meta.url, 'sign-in-attempt');
/** A try that was not a guess given back (lua/sign-in-release.lua). */
export const SIGN_IN_RELEASE = readLua(import.meta.url, 'sign-in-release');

const GUESS_FAILURES = new Set([
  'invalid_credentials',
  'invalid_password',
  'mfa_invalid',
  'verification_invalid',
  'verification_exhausted',
]);
export const isGuessFailure = (err: unknown) => err instanceof GatewayError && GUESS_FAILURES.has(err.code);
