-- Accounts, API keys, console sessions, the money ledger and usage records.
-- Money is integer micro-USD (BIGINT) everywhere.

CREATE TABLE IF NOT EXISTS users (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email             text NOT NULL,
  password_hash     text,
  nickname          text,
  locale            text,
  region            text,
  balance_micro_usd bigint NOT NULL DEFAULT 0,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS users_email_lower ON users (lower(email));

CREATE TABLE IF NOT EXISTS api_keys (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id               uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name                  text NOT NULL DEFAULT '',
  key_hash              bytea NOT NULL UNIQUE,
  prefix                text NOT NULL,
  last4                 text NOT NULL,
  status                text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled', 'revoked')),
  expires_at            timestamptz,
  group_id              text NOT NULL DEFAULT 'default',
  ip_allowlist          cidr[] NOT NULL DEFAULT '{}',
  -- 'own' for new keys; rows that predate the column were migrated to 'all' by the spec's rule.
  asset_access          text NOT NULL DEFAULT 'own' CHECK (asset_access IN ('own', 'all', 'none')),
  compatibility_profile text NOT NULL DEFAULT 'standard_v1' CHECK (compatibility_profile IN ('standard_v1', 'legacy_v1')),
  rpm_limit             integer CHECK (rpm_limit >= 0),
  tpm_limit             integer CHECK (tpm_limit >= 0),
  concurrency_limit     integer CHECK (concurrency_limit >= 0),
  total_micro_usd       bigint CHECK (total_micro_usd >= 0),
  daily_micro_usd       bigint CHECK (daily_micro_usd >= 0),
  monthly_micro_usd     bigint CHECK (monthly_micro_usd >= 0),
  tags                  text[] NOT NULL DEFAULT '{}',
  usage_access          boolean NOT NULL DEFAULT false,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  revoked_at            timestamptz
);
CREATE INDEX IF NOT EXISTS api_keys_user ON api_keys (user_id, created_at DESC);

-- The profile is fixed for the life of a key: changing it means creating a new key.
CREATE OR REPLACE FUNCTION api_keys_profile_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.compatibility_profile IS DISTINCT FROM OLD.compatibility_profile THEN
    RAISE EXCEPTION 'compatibility_profile is immutable' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS api_keys_profile_immutable ON api_keys;
CREATE TRIGGER api_keys_profile_immutable BEFORE UPDATE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION api_keys_profile_immutable();

CREATE TABLE IF NOT EXISTS console_sessions (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash  bytea NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz,
  ip          text,
  user_agent  text
);
CREATE INDEX IF NOT EXISTS console_sessions_user ON console_sessions (user_id);

-- Append-only: every change of a balance is one row here, with the balance after it.
CREATE TABLE IF NOT EXISTS ledger_entries (
  id                      bigserial PRIMARY KEY,
  user_id                 uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind                    text NOT NULL CHECK (kind IN ('charge', 'credit', 'refund', 'adjustment')),
  amount_micro_usd        bigint NOT NULL,
  balance_after_micro_usd bigint NOT NULL,
  -- For charges and refunds: the usage record id. One charge per request id, by constraint.
  request_id              text,
  note                    text,
  created_at              timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ledger_one_per_request UNIQUE (kind, request_id)
);
CREATE INDEX IF NOT EXISTS ledger_entries_user ON ledger_entries (user_id, id);

CREATE OR REPLACE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only' USING ERRCODE = 'restrict_violation';
END $$;
DROP TRIGGER IF EXISTS ledger_entries_append_only ON ledger_entries;
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();

-- One row per call (per attempt, for fallbacks). `id` is made by the gateway and is what the
-- ledger references; `request_id` is what the client saw in X-Request-Id (its own when it sent one).
CREATE TABLE IF NOT EXISTS usage_records (
  id                text PRIMARY KEY,
  request_id        text NOT NULL,
  user_id           uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  api_key_id        uuid REFERENCES api_keys (id) ON DELETE SET NULL,
  model             text NOT NULL,
  provider          text,
  endpoint          text NOT NULL,
  status_code       integer NOT NULL,
  error_code        text,
  stream            boolean NOT NULL DEFAULT false,
  input_tokens      integer NOT NULL DEFAULT 0,
  output_tokens     integer NOT NULL DEFAULT 0,
  cached_tokens     integer NOT NULL DEFAULT 0,
  usage_estimated   boolean NOT NULL DEFAULT false,
  charged_micro_usd bigint NOT NULL DEFAULT 0 CHECK (charged_micro_usd >= 0),
  tags              text[] NOT NULL DEFAULT '{}',
  latency_ms        integer,
  ttft_ms           integer,
  created_at        timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS usage_records_user_time ON usage_records (user_id, created_at DESC);
CREATE INDEX IF NOT EXISTS usage_records_key_time ON usage_records (api_key_id, created_at DESC);
CREATE INDEX IF NOT EXISTS usage_records_request ON usage_records (request_id);
