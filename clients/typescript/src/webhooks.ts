import { createHmac, timingSafeEqual } from 'node:crypto';
import { GatewayError } from './errors.js';

/** A webhook delivery's body: the event, naming the task (or batch) it is about. */
export interface WebhookEvent {
  id: string;
  object: 'event';
  /** `video.completed`, `image_task.failed`, `batch.completed`, `webhook.test`, … */
  type: string;
  /** Unix seconds. */
  created_at: number;
  data: { id: string; object: string };
}

/** Node's `req.headers`, a fetch `Headers`, or any object keyed by header name (any case). */
export type WebhookHeaders = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300: replays older than that fail). */
  toleranceSeconds?: number;
  /** Unix seconds to check against (default: now). */
  now?: number;
}

/** The delivery is not authentic, or too old or too new: answer it 4xx and do not act on it. */
export class WebhookVerificationError extends GatewayError {
  constructor(message: string) {
    super(message, { code: 'webhook_verification_failed' });
  }
}

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/**
 * Verifies a webhook delivery as Standard Webhooks defines it and returns its event. `body` is the
 * raw request body, exactly as received (parse it only after this: re-serialised JSON does not
 * verify); `secret` is the endpoint's `whsec_…` secret. Any of the signatures in
 * `webhook-signature` may match (two during a secret rotation); comparisons take constant time.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not Unix seconds');
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(timestamp)) > tolerance)
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s from now`);
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const expected = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.`).update(bytes).digest();
  const matched = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matched) throw new WebhookVerificationError('no signature in webhook-signature matches');
  try {
    return JSON.parse(bytes.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}

function secretKey(secret: string): Buffer {
  if (typeof secret !== 'string' || secret === '') throw new TypeError('secret: the endpoint secret (whsec_…)');
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  for (const [key, value] of Object.entries(record)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
}
