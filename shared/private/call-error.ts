import type { GatewayError } from '../errors.js';

/** Why a call failed, as its answer renders it: a refusal's `Retry-After` and rate-limit headers with it. */
export interface CallError {
  code: string;
  message: string;
  status: number;
  /** Seconds, sent as `Retry-After`. */
  retryAfter?: number;
  /** The refusal's `X-RateLimit-*` headers as they stood when it was refused: announced, never stored. */
  headers?: Record<string, string>;
}

/** A failure as the waiting API answers it. */
export function callErrorOf(err: GatewayError): CallError {
  const error: CallError = { code: err.code, message: err.message, status: err.status };
  if (err.retryAfter !== undefined) error.retryAfter = err.retryAfter;
  if (err.headers !== undefined) error.headers = err.headers;
  return error;
}

/** A failure as the call keeps it: headers go stale, so only the rest. */
export function storedError({ headers: _headers, ...error }: CallError): Omit<CallError, 'headers'> {
  return error;
}
