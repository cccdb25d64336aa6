import { errors as undiciErrors } from 'undici';
import { GatewayError } from '../errors.js';

/** Whether the next route may be tried: the upstream was unreachable, overloaded or broken. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * An upstream failure as the client sees it. The upstream's own message is not passed on: it can
 * name the provider's account or echo its credentials.
 */
export function upstreamStatusError(status: number, retryAfter: string | undefined): GatewayError {
  if (status === 429) {
    const seconds = Number(retryAfter);
    return new GatewayError('upstream_rate_limited', 429, 'the upstream provider is rate limiting, retry later', {
      retryAfter: Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 1,
    });
  }
  if (status === 504) return new GatewayError('upstream_timeout', 504, 'the upstream provider timed out');
  return new GatewayError('upstream_error', 502, `the upstream provider failed (status ${status})`);
}

export function upstreamTransportError(err: unknown): GatewayError {
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return new GatewayError('upstream_timeout', 504, 'the upstream provider timed out');
  }
  return new GatewayError('upstream_error', 502, 'the upstream provider could not be reached');
}
