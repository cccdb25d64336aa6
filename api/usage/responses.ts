import { z } from 'zod';
import { keyAnswer } from '../console/keys/responses.js';
import { timestamp, whole } from '../openapi/response-fields.js';

// The usage report and the request records, as the key routes (/v1/usage/*) and the console's
// (/api/v1/usage/*) answer them: one shape, two envelopes.

const spend = {
  requests: whole,
  errors: whole,
  input_tokens: whole,
  output_tokens: whole,
  cached_tokens: whole,
  charged_micro_usd: whole,
};
const counters = {
  ...spend,
  /** Requests answered from the response cache (counted in `requests` too). */
  cache_hits: whole,
};

/** The JSON report (`format=csv` answers the same rows as a CSV file). */
export const usageReportAnswer = z.strictObject({
  group_by: z.enum(['tag', 'model', 'key', 'day']),
  start: timestamp,
  end: timestamp,
  rows: z.array(
    z.strictObject({
      /** The tag, model id, key id or `YYYY-MM-DD`; null on the untagged line. */
      group: z.string().nullable(),
      ...counters,
    }),
  ),
  total: z.strictObject(counters),
});

/** One request record, as the logs show it. */
export const logRecordAnswer = z.strictObject({
  request_id: z.string(),
  created_at: timestamp,
  model: z.string(),
  endpoint: z.string(),
  status_code: whole,
  error_code: z.string().nullable(),
  stream: z.boolean(),
  input_tokens: whole,
  output_tokens: whole,
  cached_tokens: whole,
  charged_micro_usd: whole,
  tags: z.array(z.string()),
  latency_ms: whole.nullable(),
  /** Time to the first token of a stream. */
  ttft_ms: whole.nullable(),
  session_id: z.string().nullable(),
  api_key_id: z.uuid().nullable(),
  key_prefix: z.string().nullable(),
  /** The catalog provider that answered (`provider/account`). */
  upstream_account: z.string().nullable(),
  template_version_id: z.uuid().nullable(),
  cache_hit: z.boolean(),
});

export const score = z.strictObject({ name: z.string(), value: z.number(), comment: z.string().nullable() });

/** GET /v1/usage/logs: a cursor page. */
export const usageLogsAnswer = z.strictObject({
  object: z.literal('list'),
  data: z.array(logRecordAnswer),
  has_more: z.boolean(),
  /** The `cursor` of the next page; null on the last. */
  next_cursor: z.string().nullable(),
});

const cap = whole.nullable();
const used = whole;

/** GET /v1/key/usage: the key's own view (shared/usage/key-usage-view.ts). */
export const keyUsageAnswer = z.strictObject({
  key: keyAnswer.pick({ name: true, prefix: true, last4: true, status: true, expires_at: true, created_at: true }),
  /** Each cap (null: none), what is spent against it, and what remains where there is a cap. */
  quota: z.strictObject({
    total_micro_usd: cap,
    used_total_micro_usd: used,
    remaining_total_micro_usd: whole.optional(),
    daily_micro_usd: cap,
    used_daily_micro_usd: used,
    remaining_daily_micro_usd: whole.optional(),
    monthly_micro_usd: cap,
    used_monthly_micro_usd: used,
    remaining_monthly_micro_usd: whole.optional(),
  }),
  budget: z
    .strictObject({
      limit_micro_usd: whole,
      period: z.enum(['day', 'week', 'month', 'total']),
      /** The current period (null for `total`, which never starts again). */
      period_start: timestamp.nullable(),
      period_end: timestamp.nullable(),
      used_micro_usd: whole,
      remaining_micro_usd: whole,
      soft_threshold_percent: whole.nullable(),
      soft_threshold_micro_usd: whole.nullable(),
    })
    .nullable(),
  limits: z.strictObject({ rpm_limit: cap, tpm_limit: cap, concurrency_limit: cap }),
  cache_ttl_seconds: whole.nullable(),
  last_30_days: z.strictObject({
    start: timestamp,
    end: timestamp,
    models: z.array(z.strictObject({ model: z.string(), ...spend })),
    total: z.strictObject(spend),
  }),
  /** The 20 latest calls, newest first. */
  recent: z.array(
    z.strictObject({
      request_id: z.string(),
      created_at: timestamp,
      model: z.string(),
      status_code: whole,
      input_tokens: whole,
      output_tokens: whole,
      charged_micro_usd: whole,
    }),
  ),
});

/** POST /v1/scores: the score, on a request or on a session. */
export const scoreAnswer = z.strictObject({
  object: z.literal('score'),
  request_id: z.string().optional(),
  session_id: z.string().optional(),
  name: z.string(),
  value: z.number(),
  comment: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
