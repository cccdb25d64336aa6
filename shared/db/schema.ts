import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { AssetTables } from './assets-schema.js';
import type { ConsoleTables } from './console-schema.js';
import type { RoutingTables } from './routing-schema.js';
import type { WebhookTables } from './webhook-schema.js';
import type { TraceCarrier } from '../telemetry/spans.js';
import type { BatchTables } from './batches-schema.js';

/**
 * The trace context of the request that created a row (tasks, batches, private calls, webhook
 * events; migrations/0028_trace_context.sql), kept for the jobs enqueued again from it (pg writes
 * the object as JSON); null while tracing is off.
 */
export type TraceContextColumn = ColumnType<TraceCarrier | null, TraceCarrier | null | undefined, never>;

export type { AssetRow, AssetUploadRow } from './assets-schema.js';

/** A key budget's period (the column's values; shared/keys/budget.ts is its logic). */
export type BudgetPeriod = 'day' | 'week' | 'month' | 'total';

// pg returns BIGINT as a string by default; shared/db/index.ts parses it to a number, which is
// exact up to 2^53 micro-USD (about 9 billion USD).
type Money = ColumnType<number, number | bigint, number | bigint>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface UsersTable {
  id: Generated<string>;
  email: string;
  password_hash: string | null;
  nickname: string | null;
  locale: string | null;
  region: string | null;
  balance_micro_usd: ColumnType<number, number | undefined, number>;
  rpm_limit: ColumnType<number | null, number | null | undefined, number | null>;
  tpm_limit: ColumnType<number | null, number | null | undefined, number | null>;
  concurrency_limit: ColumnType<number | null, number | null | undefined, number | null>;
  /** numeric(5,2), read as a string by pg. */
  discount_percent: ColumnType<string, string | number | undefined, string | number>;
  /** Keep prompts and completions (in object storage) for dataset exports. */
  log_content: ColumnType<boolean, boolean | undefined, boolean>;
  two_factor_enabled: ColumnType<boolean, boolean | undefined, boolean>;
  /** NULL while a console sign-up waits for its e-mailed code. */
  email_verified_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  closed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Catalog groups the operator lets this user choose in the console, beside the self-service ones. */
  allowed_groups: ColumnType<string[], string[] | undefined, string[]>;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export type AssetAccess = 'own' | 'all' | 'none';
export type CompatibilityProfile = 'standard_v1' | 'legacy_v1';
export type KeyStatus = 'active' | 'disabled' | 'revoked';

export interface ApiKeysTable {
  id: Generated<string>;
  user_id: string;
  name: Generated<string>;
  key_hash: Buffer;
  prefix: string;
  last4: string;
  status: ColumnType<KeyStatus, KeyStatus | undefined, KeyStatus>;
  expires_at: Timestamp | null;
  group_id: ColumnType<string, string | undefined, string>;
  ip_allowlist: ColumnType<string[], string[] | undefined, string[]>;
  asset_access: ColumnType<AssetAccess, AssetAccess | undefined, AssetAccess>;
  compatibility_profile: ColumnType<CompatibilityProfile, CompatibilityProfile | undefined, never>;
  rpm_limit: number | null;
  tpm_limit: number | null;
  concurrency_limit: number | null;
  total_micro_usd: Money | null;
  daily_micro_usd: Money | null;
  monthly_micro_usd: Money | null;
  tags: ColumnType<string[], string[] | undefined, string[]>;
  usage_access: ColumnType<boolean, boolean | undefined, boolean>;
  default_preset: ColumnType<string | null, string | null | undefined, string | null>;
  /** Seconds an answer of this key stays in the response cache (migrations/0027); null = not set on the key. */
  cache_ttl_seconds: ColumnType<number | null, number | null | undefined, number | null>;
  /** The budget (migrations/0024_key_budgets.sql; shared/keys/budget.ts): all three null, or limit and period set. */
  budget_micro_usd: Money | null;
  budget_period: ColumnType<BudgetPeriod | null, BudgetPeriod | null | undefined, BudgetPeriod | null>;
  budget_soft_percent: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  revoked_at: Timestamp | null;
}

export interface ConsoleSessionsTable {
  id: Generated<string>;
  user_id: string;
  token_hash: Buffer;
  created_at: CreatedAt;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  ip: string | null;
  user_agent: string | null;
}

export type LedgerKind = 'charge' | 'credit' | 'refund' | 'adjustment';

export interface LedgerEntriesTable {
  id: Generated<number>;
  user_id: string;
  kind: LedgerKind;
  amount_micro_usd: Money;
  balance_after_micro_usd: Money;
  request_id: string | null;
  note: string | null;
  created_at: CreatedAt;
}

export interface UsageRecordsTable {
  id: string;
  request_id: string;
  user_id: string;
  api_key_id: string | null;
  model: string;
  provider: string | null;
  endpoint: string;
  status_code: number;
  error_code: string | null;
  stream: boolean;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  usage_estimated: boolean;
  /** The priced usage exceeded the reservation (the excess was charged from the balance as far as it went). */
  over_reservation: ColumnType<boolean, boolean | undefined, boolean>;
  charged_micro_usd: Money;
  tags: string[];
  latency_ms: number | null;
  ttft_ms: number | null;
  upstream_account?: string | null;
  template_version_id?: string | null;
  /** The protocol surface of a text call (`chat-completions`, `messages`, `generate-content`); null for tasks and older rows. */
  surface?: string | null;
  session_id?: string | null;
  /** Answered from the response cache (migrations/0027). */
  cache_hit?: ColumnType<boolean, boolean | undefined, boolean>;
  /** Insertion order (bigserial): pages the logs stably while records keep arriving. */
  seq?: ColumnType<string, never, never>;
  created_at: Timestamp;
}

export interface ScoresTable {
  id: Generated<string>;
  user_id: string;
  api_key_id: string | null;
  request_id: string | null;
  session_id: string | null;
  name: string;
  value: number;
  comment: string | null;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export type TaskKind = 'video' | 'image';
export type TaskStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'expired';
export type TaskStage = 'submit' | 'poll' | 'mirror' | 'settle' | 'done';

export interface TasksTable {
  id: string;
  kind: TaskKind;
  user_id: string;
  api_key_id: string | null;
  request_id: string;
  model: string;
  provider: string;
  upstream_model: string;
  /** The provider's account the task was sent with (`default` for a single-key provider); null on older rows. */
  upstream_account: ColumnType<string | null, string | null | undefined, string | null>;
  status: ColumnType<TaskStatus, TaskStatus | undefined, TaskStatus>;
  stage: ColumnType<TaskStage, TaskStage | undefined, TaskStage>;
  request: ColumnType<Record<string, unknown>, string, string>;
  upstream_id: string | null;
  progress: number | null;
  provider_url: string | null;
  provider_urls: string[] | null;
  stored_keys: string[] | null;
  result_size: Money | null;
  error_code: string | null;
  error_message: string | null;
  reserved_micro_usd: Money;
  charged_micro_usd: ColumnType<number, number | undefined, number>;
  usage: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  tags: ColumnType<string[], string[] | undefined, string[]>;
  cancel_requested: ColumnType<boolean, boolean | undefined, boolean>;
  submit_attempts: ColumnType<number, number | undefined, number>;
  polls: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  deadline_at: Timestamp;
  trace_context: TraceContextColumn;
}

export interface IdempotencyKeysTable {
  user_id: string;
  api_key_id: string;
  endpoint: string;
  key: string;
  request_hash: Buffer;
  response_status: number;
  response_body: ColumnType<unknown, string, string>;
  task_id: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export type ExportStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface DatasetExportsTable {
  id: Generated<string>;
  user_id: string;
  status: ColumnType<ExportStatus, ExportStatus | undefined, ExportStatus>;
  filters: ColumnType<Record<string, unknown>, string, string>;
  object_key: string | null;
  records: number | null;
  error: string | null;
  created_at: CreatedAt;
  finished_at: Timestamp | null;
}

/** One soft-threshold mail of a key's budget: at most one per key, period and threshold. */
export interface KeyBudgetNoticesTable {
  api_key_id: string;
  /** `total`, `day-20310115`, `week-2031W03` or `month-203101` (shared/keys/budget.ts). */
  period: string;
  threshold_micro_usd: Money;
  spent_micro_usd: Money;
  notified_at: CreatedAt;
}

export interface Database extends RoutingTables, ConsoleTables, WebhookTables, AssetTables, BatchTables {
  users: UsersTable;
  api_keys: ApiKeysTable;
  console_sessions: ConsoleSessionsTable;
  ledger_entries: LedgerEntriesTable;
  usage_records: UsageRecordsTable;
  tasks: TasksTable;
  idempotency_keys: IdempotencyKeysTable;
  private_calls: PrivateCallsTable;
  scores: ScoresTable;
  dataset_exports: DatasetExportsTable;
  key_budget_notices: KeyBudgetNoticesTable;
}

export type TaskRow = Selectable<TasksTable>;

export type User = Selectable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;
export type ApiKeyUpdate = Updateable<ApiKeysTable>;
export type UsageRecordRow = Insertable<UsageRecordsTable>;

export type PrivateCallKind = 'chat';

/** A private-protocol chat call (`/server`): see migrations/0016_private_calls.sql. */
export interface PrivateCallsTable {
  id: string;
  user_id: string;
  api_key_id: string | null;
  client_request_id: string;
  request_id: string;
  kind: PrivateCallKind;
  model: string;
  stream: boolean;
  request: ColumnType<Record<string, unknown>, string, string>;
  status: ColumnType<TaskStatus, TaskStatus | undefined, TaskStatus>;
  result: ColumnType<unknown, string | null | undefined, string | null>;
  error: ColumnType<
    { code: string; message: string; status: number; retryAfter?: number } | null,
    string | null | undefined,
    string | null
  >;
  /** The key's and the request's cost tags; null on calls accepted before tags were kept (the key's then). */
  tags: string[] | null;
  created_at: ColumnType<Date, string, never>;
  finished_at: ColumnType<Date | null, string | null | undefined, string | null>;
  trace_context: TraceContextColumn;
}
export type PrivateCallRow = Selectable<PrivateCallsTable>;
