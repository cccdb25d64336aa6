import { safePost } from '../assets/safe-fetch.js';
import type { WebhookEndpointRow } from '../db/webhook-schema.js';
import { GATEWAY_VERSION } from '../version.js';
import type { WebhookConfig } from './config.js';
import { addressPolicy } from './endpoint-url.js';
import { signatureHeader } from './signature.js';

/** What is read of an answer at most; the rest is left unread. */
const ANSWER_READ_BYTES = 64 * 1024;
/** What an attempt keeps of the answer, for the owner to see in the deliveries list. */
export const EXCERPT_BYTES = 1024;
const USER_AGENT = `model-gateway-webhooks/${GATEWAY_VERSION}`;

export interface AttemptResult {
  delivered: boolean;
  /** Null when no HTTP answer came. */
  statusCode: number | null;
  durationMs: number;
  excerpt: string;
  error: string | null;
}

/** The secrets that sign now: the current one, and the previous one during a rotation's 24 h. */
export function liveSecrets(endpoint: WebhookEndpointRow, now: number): string[] {
  const previous =
    endpoint.previous_secret &&
    endpoint.previous_secret_expires_at &&
    endpoint.previous_secret_expires_at.getTime() > now
      ? [endpoint.previous_secret]
      : [];
  return [endpoint.secret, ...previous];
}

/**
 * One attempt, as Standard Webhooks defines it: the event's stored body, signed over
 * `<webhook-id>.<webhook-timestamp>.<body>` with every live secret, POSTed through the SSRF-safe
 * fetcher (the host resolved and checked, the connection pinned, no redirect followed). Any 2xx
 * within WEBHOOK_ATTEMPT_TIMEOUT_MS (15 s) is delivered; never throws.
 */
export async function sendAttempt(
  config: WebhookConfig,
  endpoint: WebhookEndpointRow,
  event: { id: string; payload: string },
  now: number,
): Promise<AttemptResult> {
  // The receiver checks this against its own clock: wall time, whatever the domain clock says.
  const timestamp = Math.floor(Date.now() / 1000);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const answer = await safePost(endpoint.url, {
      ...addressPolicy(config),
      timeoutMs: config.attemptTimeoutMs,
      maxBytes: ANSWER_READ_BYTES,
      body: event.payload,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(liveSecrets(endpoint, now), event.id, timestamp, event.payload),
      },
    });
    const delivered = answer.status >= 200 && answer.status < 300;
    const redirect = answer.status >= 300 && answer.status < 400 ? ' (redirects are not followed)' : '';
    return {
      delivered,
      statusCode: answer.status,
      durationMs: elapsed(),
      excerpt: excerptOf(answer.body),
      error: delivered ? null : `answered ${answer.status}${redirect}`,
    };
  } catch (err) {
    const durationMs = elapsed();
    const timedOut = durationMs >= config.attemptTimeoutMs - 50;
    const error = timedOut ? `no answer within ${config.attemptTimeoutMs / 1000} s` : (err as Error).message;
    return { delivered: false, statusCode: null, durationMs, excerpt: '', error };
  }
}

/**
 * At most the first KiB of the answer, as text: a character cut in half is dropped, NUL (which
 * Postgres text refuses) removed, and invalid bytes — each read as a 3-byte U+FFFD — trimmed until
 * it fits again.
 */
export function excerptOf(body: Buffer): string {
  const text = new TextDecoder('utf-8').decode(body.subarray(0, EXCERPT_BYTES));
  let excerpt = (body.length > EXCERPT_BYTES ? text.replace(/\uFFFD$/, '') : text).replaceAll('\u0000', '');
  while (Buffer.byteLength(excerpt) > EXCERPT_BYTES) excerpt = excerpt.slice(0, -1);
  return excerpt;
}
