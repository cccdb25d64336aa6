import { z } from 'zod';

/** The webhook variables, spread into the one environment schema in shared/config.ts. */
export const webhookEnvShape = {
  /** Development only: endpoints may be `http` URLs and loopback addresses. Refused when NODE_ENV=production. */
  WEBHOOK_ALLOW_INSECURE_URLS: z.stringbool().default(false),
  /** The wait before the first retry, doubling each time (capped at 12 h); tests make it short. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).default(30_000),
  /** How long an attempt waits for a 2xx, ms (Standard Webhooks' 15 s); tests make it short. */
  WEBHOOK_ATTEMPT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
};

type WebhookEnv = z.infer<z.ZodObject<typeof webhookEnvShape>> & { NODE_ENV: string };

export interface WebhookConfig {
  allowInsecureUrls: boolean;
  retryBaseMs: number;
  attemptTimeoutMs: number;
}

/** What the schema cannot say: the insecure mode never runs in production. */
export function webhookEnvIssues(e: WebhookEnv): string[] {
  return e.NODE_ENV === 'production' && e.WEBHOOK_ALLOW_INSECURE_URLS
    ? [
        'WEBHOOK_ALLOW_INSECURE_URLS: a development setting (http and loopback endpoints); refused when NODE_ENV=production',
      ]
    : [];
}

export function webhookConfig(e: WebhookEnv): WebhookConfig {
  return {
    allowInsecureUrls: e.WEBHOOK_ALLOW_INSECURE_URLS,
    retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
    attemptTimeoutMs: e.WEBHOOK_ATTEMPT_TIMEOUT_MS,
  };
}
