import { z } from 'zod';
import { timestamp, whole } from '../openapi/response-fields.js';

// The usage report and the request records, as the key routes (/v1/usage/*) and the console's
// (/api/v1/usage/*) answer them: one shape, two envelopes.

const counters = {
  requests: whole,
  errors: whole,
  input_tokens: whole,
  output_tokens: whole,
  cached_tokens: whole,
  charged_micro_usd: whole,
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
