/** One error class for every failure the client reports, with subclasses for the common cases. */
export class GatewayError extends Error {
  /** HTTP status; undefined when no answer arrived. */
  readonly status: number | undefined;
  /** The gateway's error code (`invalid_api_key`, `rate_limit_exceeded`, …). */
  readonly code: string | undefined;
  /** The call's request id (`X-Request-Id`), to quote when asking about it. */
  requestID: string | undefined;
  readonly body: unknown;
  /** Seconds to wait before trying again, from `Retry-After`. */
  readonly retryAfter: number | undefined;

  constructor(
    message: string,
    init: { status?: number; code?: string; requestID?: string; body?: unknown; retryAfter?: number } = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.requestID = init.requestID;
    this.body = init.body;
    this.retryAfter = init.retryAfter;
  }
}

/** 401: the key is missing, unknown, revoked or expired. */
export class AuthenticationError extends GatewayError {}
/** 403: the key is disabled, or not allowed this model, address or asset. */
export class PermissionDeniedError extends GatewayError {}
/** 404 (or the private protocol's code -1): nothing of this id is visible to the key. */
export class NotFoundError extends GatewayError {}
/** 429 from a rate limit; `retryAfter` is the suggested wait in seconds. */
export class RateLimitError extends GatewayError {}
/** 402 `insufficient_balance` or 429 `quota_exceeded`: money, not speed, is short. */
export class InsufficientFundsError extends GatewayError {}
/** The model provider failed, timed out or rate-limited every route (502, 504, `upstream_*`). */
export class UpstreamError extends GatewayError {}
/** No answer arrived (refused, reset, timed out). */
export class APIConnectionError extends GatewayError {}
/** A stream ended before its end marker. Never replayed automatically: the call may be paid. */
export class StreamInterruptedError extends GatewayError {}

/** `videos.wait` ran out of time. The task goes on: query it again with the same id. */
export class WaitTimeoutError extends GatewayError {
  constructor(
    message: string,
    readonly task: unknown,
  ) {
    super(message, { code: 'wait_timeout' });
  }
}

export type UploadStage = 'reserve' | 'put' | 'complete';

/** An upload that failed at `stage`; `assets.resumeUpload(error)` carries it on once reserved. */
export class UploadError extends GatewayError {
  /** @internal what to PUT again when the PUT failed */
  source: { reservation: Reservation; data: Uint8Array } | undefined;

  constructor(
    cause: GatewayError,
    readonly stage: UploadStage,
    readonly uploadId?: string,
    readonly assetId?: string,
  ) {
    super(`upload failed at ${stage}: ${cause.message}`, {
      ...(cause.status !== undefined && { status: cause.status }),
      ...(cause.code !== undefined && { code: cause.code }),
      ...(cause.requestID !== undefined && { requestID: cause.requestID }),
      body: cause.body,
      ...(cause.retryAfter !== undefined && { retryAfter: cause.retryAfter }),
    });
  }
}

export interface Reservation {
  upload_id: string;
  upload_url: string;
  method?: string;
  headers?: Record<string, string>;
  expires_at?: string;
}

const FUNDS_CODES = new Set(['insufficient_balance', 'quota_exceeded', 'budget_exceeded']);

/** The subclass that fits an error answer: by code first (a quota 429 is not a rate limit). */
export function errorFromAnswer(
  status: number,
  code: string | undefined,
  message: string,
  requestID: string | undefined,
  body: unknown,
  retryAfter: number | undefined,
): GatewayError {
  const init = {
    status,
    ...(code !== undefined && { code }),
    ...(requestID !== undefined && { requestID }),
    body,
    ...(retryAfter !== undefined && { retryAfter }),
  };
  if ((code !== undefined && FUNDS_CODES.has(code)) || status === 402) return new InsufficientFundsError(message, init);
  if (code?.startsWith('upstream_') || status === 502 || status === 504) return new UpstreamError(message, init);
  const Kind =
    { 401: AuthenticationError, 403: PermissionDeniedError, 404: NotFoundError, 429: RateLimitError }[status] ??
    GatewayError;
  return new Kind(message, init);
}
