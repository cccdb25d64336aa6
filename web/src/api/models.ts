import type { paths } from './schema';

/**
 * What the console API answers. The OpenAPI document describes request bodies and queries only
 * (schema.d.ts types those); until it names response schemas too, these follow
 * docs/reference/console-api.md and are checked by the browser tests against the real gateway.
 */
export interface User {
  id: string;
  email: string;
  nickname: string | null;
  locale: string | null;
  region: string | null;
  has_password: boolean;
  created_at: string;
}

export interface Page<T> {
  list: T[];
  total: number;
  page: number;
  page_size: number;
}

export type AssetAccess = 'own' | 'all' | 'none';

/** A key's hard spending limit over a UTC period; the soft threshold mails the owner once per period. */
export interface KeyBudget {
  limit_micro_usd: number;
  period: 'day' | 'week' | 'month' | 'total';
  soft_threshold_percent: number | null;
}

export interface Key {
  id: string;
  name: string;
  prefix: string;
  last4: string;
  status: 'active' | 'disabled' | 'revoked';
  expires_at: string | null;
  created_at: string;
  group: string;
  ip_allowlist: string[];
  asset_access: AssetAccess;
  compatibility_profile: 'standard_v1' | 'legacy_v1';
  rpm_limit: number | null;
  tpm_limit: number | null;
  concurrency_limit: number | null;
  total_micro_usd: number | null;
  daily_micro_usd: number | null;
  monthly_micro_usd: number | null;
  budget: KeyBudget | null;
  tags: string[];
  usage_access: boolean;
  default_preset: string | null;
  /** Seconds the key's answers stay in the response cache; null = not set on the key. */
  cache_ttl_seconds: number | null;
}

export type NewKey = Key & { key: string };

export type GroupBy = 'tag' | 'model' | 'key' | 'day';

export interface Counters {
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  charged_micro_usd: number;
  /** Requests answered from the response cache. */
  cache_hits: number;
}

export interface ReportRow extends Counters {
  /** The tag, model, key id or `YYYY-MM-DD`; null on the untagged line. */
  group: string | null;
}

export interface Report {
  group_by: GroupBy;
  start: string;
  end: string;
  rows: ReportRow[];
  total: Counters;
}

export interface LogRecord {
  request_id: string;
  created_at: string;
  model: string;
  status_code: number;
  input_tokens: number;
  output_tokens: number;
  charged_micro_usd: number;
  /** Given to this request with POST /v1/scores. */
  scores: { name: string; value: number; comment: string | null }[];
  cache_hit?: boolean;
  [field: string]: unknown;
}

export interface LedgerEntry {
  id: string;
  kind: 'charge' | 'credit' | 'refund' | 'adjustment';
  amount_micro_usd: number;
  balance_after_micro_usd: number;
  request_id: string | null;
  note: string | null;
  created_at: string;
}

export interface Session {
  id: string;
  current: boolean;
  created_at: string;
  expires_at: string;
  ip: string | null;
  user_agent: string | null;
}

export interface CodeSent {
  expires_at: string;
  cooldown_seconds: number;
}

export interface Group {
  id: string;
  models: '*' | string[];
  discount_percent: number;
  rpm_limit: number | null;
  tpm_limit: number | null;
  concurrency_limit: number | null;
}

export interface Preset {
  slug: string;
  models: string[];
}

export type WebhookEventType = NonNullable<
  paths['/api/v1/webhooks']['post']['requestBody']
>['content']['application/json']['events'][number];

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  enabled: boolean;
  /** `owner`, `failing` or `account_closed`; null while enabled. */
  disabled_reason: string | null;
  failing_since: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Create and rotate answer the endpoint with its `whsec_` secret, that once. */
export type WebhookWithSecret = WebhookEndpoint & { secret: string };

export interface WebhookAttempt {
  attempted_at: string;
  status_code: number | null;
  duration_ms: number | null;
  response_excerpt: string | null;
  error: string | null;
}

export interface WebhookDelivery {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempt_count: number;
  next_attempt_at: string | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  attempts: WebhookAttempt[];
}
