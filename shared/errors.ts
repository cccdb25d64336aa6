/** Every error code the gateway and console can answer with; docs/reference/errors.md lists them. */
export type ErrorCode =
  | 'invalid_request'
  | 'unsupported_parameter'
  | 'not_implemented'
  | 'verification_cooldown'
  | 'verification_invalid'
  | 'verification_exhausted'
  | 'invalid_json'
  | 'invalid_tags'
  | 'usage_access_disabled'
  | 'body_too_large'
  | 'invalid_api_key'
  | 'key_disabled'
  | 'key_expired'
  | 'ip_not_allowed'
  | 'model_not_found'
  | 'model_not_allowed'
  | 'insufficient_balance'
  | 'quota_exceeded'
  | 'budget_exceeded'
  | 'rate_limit_exceeded'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'idempotency_key_reused'
  | 'idempotency_in_progress'
  | 'reference_asset_unavailable'
  | 'asset_too_large'
  | 'reference_url_blocked'
  | 'reference_fetch_failed'
  | 'unsupported_media_type'
  | 'invalid_image'
  | 'upload_incomplete'
  | 'upload_mismatch'
  | 'asset_access_denied'
  | 'unauthorized'
  | 'forbidden'
  | 'invalid_credentials'
  | 'invalid_password'
  | 'account_locked'
  | 'too_many_attempts'
  | 'mfa_required'
  | 'mfa_invalid'
  | 'email_unverified'
  | 'weak_password'
  | 'password_reused'
  | 'captcha_invalid'
  | 'passkey_invalid'
  | 'oauth_failed'
  | 'identity_already_linked'
  | 'provider_already_linked'
  | 'identity_email_in_use'
  | 'last_sign_in_method'
  | 'csrf_rejected'
  | 'immutable_field'
  | 'group_not_allowed'
  | 'upstream_error'
  | 'upstream_timeout'
  | 'upstream_rate_limited'
  | 'upstream_stream_interrupted'
  | 'upstream_unavailable'
  | 'service_unavailable'
  | 'internal_error';

export interface GatewayErrorOptions {
  /** The request field at fault, named in the message and in OpenAI's `param`. */
  param?: string;
  /** Seconds, sent as `Retry-After`. */
  retryAfter?: number;
  headers?: Record<string, string>;
  /** A money refusal: the micro-USD still available (balance, or what is left under the cap). */
  available?: number;
  /** What the caller needs to continue (e.g. the ticket of a sign-in held for its code): the console's `details`. */
  details?: Record<string, unknown>;
}

/** The one error type of the domain; each protocol renders it in its own shape at the edge. */
export class GatewayError extends Error {
  readonly param: string | undefined;
  readonly retryAfter: number | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly available: number | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
    options: GatewayErrorOptions = {},
  ) {
    super(message);
    this.name = 'GatewayError';
    this.param = options.param;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
    this.available = options.available;
    this.details = options.details;
  }
}

export const badRequest = (message: string, param?: string) =>
  new GatewayError('invalid_request', 400, message, param === undefined ? {} : { param });
export const invalidJson = (message = 'request body is not valid JSON') =>
  new GatewayError('invalid_json', 400, message);
export const notFound = (message = 'not found') => new GatewayError('not_found', 404, message);
export const unauthorized = (message = 'authentication required') => new GatewayError('unauthorized', 401, message);
export const internalError = () => new GatewayError('internal_error', 500, 'internal error');
export const serviceUnavailable = (message = 'a backing service is unavailable, try again shortly') =>
  new GatewayError('service_unavailable', 503, message, { retryAfter: 1 });

// Postgres SQLSTATEs of a server that is going or gone: connection exceptions (class 08), shutdowns,
// "cannot connect now" (starting up), too many connections.
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;
const NET_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// What pg, pg-pool and ioredis say when their server cannot be reached (they carry no code), and
// Redis's own refusals while a failover is under way (a demoted master, a replica still loading).
const CLIENT_UNAVAILABLE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed|Stream isn't writeable|Command timed out|max retries per request|All sentinels are unreachable|^(READONLY|LOADING|MASTERDOWN) /;

/**
 * True for an error that says Postgres or Redis cannot be reached (rather than a bug): the caller
 * gets a 503 to retry, not a 500.
 */
export function isBackingServiceDown(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 3) return false;
  const e = err as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.code === 'string' && (PG_UNAVAILABLE.test(e.code) || NET_UNAVAILABLE.has(e.code))) return true;
  if (typeof e.message === 'string' && CLIENT_UNAVAILABLE.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isBackingServiceDown(inner, depth + 1))) return true;
  return isBackingServiceDown(e.cause, depth + 1);
}

export function isGatewayError(err: unknown): err is GatewayError {
  return err instanceof GatewayError;
}
