/** A delivery is retried for 3 days from its event (or its redelivery); so long failing disables an endpoint. */
export const RETRY_WINDOW_MS = 3 * 24 * 3600 * 1000;
/** The longest wait between two attempts. */
export const MAX_RETRY_DELAY_MS = 12 * 3600 * 1000;
/** The previous secret keeps signing this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/**
 * The wait after the `attempts`-th failed attempt: the base (WEBHOOK_RETRY_BASE_MS, 30 s by default)
 * doubling each time up to 12 h, ±10 % so the retries of many deliveries do not fall in step.
 * With the default: 30 s, 1 min, 2 min, 4 min, 8 min, 16 min, 32 min, 64 min, ~2 h, ~4 h, ~8.5 h,
 * then every 12 h, with a last attempt at the end of the 3 days.
 */
export function retryDelayMs(attempts: number, baseMs: number, random = Math.random): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 40);
  const delay = Math.min(baseMs * 2 ** exponent, MAX_RETRY_DELAY_MS);
  return Math.round(delay * (0.9 + random() * 0.2));
}

/** When the next attempt is due after a failure at `now`, or undefined when the window is spent. */
export function nextAttemptAt(attempts: number, now: number, retryUntil: number, baseMs: number): number | undefined {
  if (now >= retryUntil) return undefined;
  return Math.min(now + retryDelayMs(attempts, baseMs), retryUntil);
}

/**
 * Longer than any attempt can last (the POST is cut at WEBHOOK_ATTEMPT_TIMEOUT_MS, 15 s): an
 * attempt started this long ago is over, its worker dead.
 */
export function attemptLeaseMs(attemptTimeoutMs: number): number {
  return attemptTimeoutMs + 5_000;
}
