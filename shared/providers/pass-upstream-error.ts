import { GatewayError } from '../errors.js';
import { upstreamStatusError } from './upstream-errors.js';
import type { UpstreamCall } from './upstream-call.js';

// The client's own mistakes, as the upstream judged them: worth passing on (e.g. context too long).
const CLIENT_FAULTS = new Set([400, 413, 422]);

/**
 * Turns a non-200 upstream answer into the gateway's error. Only a client-fault message is passed
 * on, and only its text: a 401/403 from the upstream is our credential's problem, not the caller's.
 */
export async function passUpstreamError(routed: { response: UpstreamCall }): Promise<never> {
  const { statusCode, headers } = routed.response;
  if (!CLIENT_FAULTS.has(statusCode)) {
    await routed.response.discard();
    const retryAfter = headers['retry-after'];
    throw upstreamStatusError(statusCode, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
  }
  let message = `the upstream provider rejected the request (status ${statusCode})`;
  let param: string | undefined;
  try {
    const parsed = JSON.parse((await routed.response.body()).toString('utf8')) as {
      error?: { message?: unknown; param?: unknown };
    };
    if (typeof parsed.error?.message === 'string') message = parsed.error.message;
    if (typeof parsed.error?.param === 'string') param = parsed.error.param;
  } catch {
    // not JSON: keep the generic message
  }
  throw new GatewayError('invalid_request', statusCode, message, param === undefined ? {} : { param });
}
