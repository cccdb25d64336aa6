import { AT } from './common.js';

/** Estimates, the key's own usage view, the account's usage report and logs, and scores. */

export const ESTIMATE_EXAMPLES = {
  request: {
    endpoint: 'chat/completions',
    payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 64 },
  },
  // The most the call could cost this key (its group's discount applied), in micro-USD.
  response: { estimated_micro_usd: 86, is_free: false },
};

const counters = { requests: 42, errors: 1, input_tokens: 12840, output_tokens: 3310, cached_tokens: 2048 };

export const KEY_USAGE_RESPONSE = {
  key: {
    name: 'production',
    prefix: 'sk-Ab3d',
    last4: 'x9Qz',
    status: 'active',
    expires_at: null,
    created_at: '2026-01-02T08:00:00.000Z',
  },
  // `remaining_*` only where the key has that cap.
  quota: {
    total_micro_usd: null,
    used_total_micro_usd: 118_250,
    daily_micro_usd: null,
    used_daily_micro_usd: 18_250,
    monthly_micro_usd: 50_000_000,
    used_monthly_micro_usd: 118_250,
    remaining_monthly_micro_usd: 49_881_750,
  },
  budget: {
    limit_micro_usd: 10_000_000,
    period: 'month',
    period_start: '2026-01-01T00:00:00.000Z',
    period_end: '2026-02-01T00:00:00.000Z',
    used_micro_usd: 118_250,
    remaining_micro_usd: 9_881_750,
    soft_threshold_percent: 80,
    soft_threshold_micro_usd: 8_000_000,
  },
  limits: { rpm_limit: 600, tpm_limit: null, concurrency_limit: null },
  cache_ttl_seconds: null,
  last_30_days: {
    start: '2026-01-01T12:00:00.000Z',
    end: AT,
    models: [{ model: 'gpt-4o-mini', ...counters, charged_micro_usd: 118_250 }],
    total: { ...counters, charged_micro_usd: 118_250 },
  },
  // The 20 latest calls, newest first.
  recent: [
    {
      request_id: 'req_9f8e7d6c5b4a',
      created_at: AT,
      model: 'gpt-4o-mini',
      status_code: 200,
      input_tokens: 24,
      output_tokens: 11,
      charged_micro_usd: 12,
    },
  ],
};

const reportCounters = { ...counters, charged_micro_usd: 18_250, cache_hits: 0 };

/** The report's JSON; the console's route answers it in its envelope. */
export const USAGE_REPORT = {
  group_by: 'model',
  start: '2026-01-01T00:00:00.000Z',
  end: '2026-02-01T00:00:00.000Z',
  rows: [{ group: 'gpt-4o-mini', ...reportCounters }],
  total: reportCounters,
};

/** One request record as the logs show it (the console's adds its `scores`). */
export const LOG_RECORD = {
  request_id: 'req_9f8e7d6c5b4a',
  model: 'gpt-4o-mini',
  endpoint: 'chat/completions',
  status_code: 200,
  error_code: null,
  stream: false,
  input_tokens: 24,
  output_tokens: 11,
  cached_tokens: 0,
  charged_micro_usd: 12,
  tags: ['web'],
  latency_ms: 640,
  ttft_ms: 640,
  session_id: null,
  api_key_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  key_prefix: 'sk-Ab3d',
  upstream_account: 'openai/main',
  template_version_id: null,
  cache_hit: false,
  created_at: AT,
};

export const USAGE_LOGS_RESPONSE = { object: 'list', data: [LOG_RECORD], has_more: true, next_cursor: 'MTI4NDE' };

export const SCORE_EXAMPLES = {
  request: { request_id: 'req_9f8e7d6c5b4a', name: 'helpfulness', value: 0.9, comment: 'clear answer' },
  response: {
    object: 'score',
    request_id: 'req_9f8e7d6c5b4a',
    name: 'helpfulness',
    value: 0.9,
    comment: 'clear answer',
    created_at: AT,
    updated_at: AT,
  },
};
