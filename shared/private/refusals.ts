import type { PrivateCallRow } from '../db/schema.js';

/**
 * The failures of the spec's six checks (the key, the model, balance, quota, budget, rate limits and
 * concurrency) and of a limiter that could not be asked: a call that ended with one of them was
 * refused before it ran, so it is not a result. Its `clientRequestId` is not pinned to it: the same
 * id runs the call once the cause is fixed (issue 30, part 2a). An upstream's failure is a result.
 */
const REFUSAL_CODES: ReadonlySet<string> = new Set([
  'invalid_api_key',
  'key_disabled',
  'key_expired',
  'ip_not_allowed',
  'model_not_found',
  'model_not_allowed',
  'insufficient_balance',
  'quota_exceeded',
  'budget_exceeded',
  'rate_limit_exceeded',
  'service_unavailable',
]);

/** Whether a call ended refused before it ran (see REFUSAL_CODES). */
export function wasRefused(call: Pick<PrivateCallRow, 'status' | 'error'>): boolean {
  return call.status === 'failed' && call.error !== null && REFUSAL_CODES.has(call.error.code);
}
