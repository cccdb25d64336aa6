-- Operator-set account limits and discount (issue: limits, quotas, budgets).
ALTER TABLE users ADD COLUMN IF NOT EXISTS rpm_limit integer CHECK (rpm_limit >= 0);
ALTER TABLE users ADD COLUMN IF NOT EXISTS tpm_limit integer CHECK (tpm_limit >= 0);
ALTER TABLE users ADD COLUMN IF NOT EXISTS concurrency_limit integer CHECK (concurrency_limit >= 0);
-- Percent with two decimals (12.50 = 12.5 % off every charge and estimate).
ALTER TABLE users ADD COLUMN IF NOT EXISTS discount_percent numeric(5, 2) NOT NULL DEFAULT 0
  CHECK (discount_percent >= 0 AND discount_percent <= 100);

-- Quota counters are rebuilt from these sums when Redis has none.
CREATE INDEX IF NOT EXISTS usage_records_key_charged ON usage_records (api_key_id, created_at) WHERE charged_micro_usd > 0;
