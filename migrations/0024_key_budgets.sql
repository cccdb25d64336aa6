-- Key budgets (docs/reference/limits.md#budgets): a hard spending limit over a UTC period, checked
-- and reserved like the quota caps, with an optional soft threshold that mails the owner once per
-- period. All three columns are null (no budget), or the limit and period are set.
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS budget_micro_usd bigint CHECK (budget_micro_usd >= 0);
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS budget_period text
  CHECK (budget_period IN ('day', 'week', 'month', 'total'));
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS budget_soft_percent smallint
  CHECK (budget_soft_percent BETWEEN 1 AND 100);
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'api_keys_budget_whole') THEN
    ALTER TABLE api_keys ADD CONSTRAINT api_keys_budget_whole CHECK (
      (budget_micro_usd IS NULL) = (budget_period IS NULL)
      AND (budget_soft_percent IS NULL OR budget_micro_usd IS NOT NULL)
    );
  END IF;
END $$;
-- The soft-threshold sweep reads only the keys that ask for a mail.
CREATE INDEX IF NOT EXISTS api_keys_budget_soft ON api_keys (id)
  WHERE budget_soft_percent IS NOT NULL AND status = 'active';

-- The soft-threshold mails sent: the row and the mail job are written together, once per key,
-- period and threshold (a changed limit or percent is a new threshold, mailed when crossed).
CREATE TABLE IF NOT EXISTS key_budget_notices (
  api_key_id          uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  period              text NOT NULL,
  threshold_micro_usd bigint NOT NULL,
  spent_micro_usd     bigint NOT NULL,
  notified_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (api_key_id, period, threshold_micro_usd)
);
-- Notices of ended periods are purged after 40 days (a month and some); `total` ones stay.
CREATE INDEX IF NOT EXISTS key_budget_notices_purge ON key_budget_notices (notified_at) WHERE period <> 'total';
