import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

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
  charged_micro_usd: Money;
  tags: string[];
  latency_ms: number | null;
  ttft_ms: number | null;
  created_at: Timestamp;
}

export interface Database {
  users: UsersTable;
  api_keys: ApiKeysTable;
  console_sessions: ConsoleSessionsTable;
  ledger_entries: LedgerEntriesTable;
  usage_records: UsageRecordsTable;
}

export type User = Selectable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;
export type ApiKeyUpdate = Updateable<ApiKeysTable>;
export type UsageRecordRow = Insertable<UsageRecordsTable>;
