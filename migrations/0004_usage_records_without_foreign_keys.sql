-- Usage records are written only by the usage drain, hundreds per statement. Their foreign keys
-- cost a lookup per row (a third of the insert) and guard nothing the writer does not already
-- ensure: it takes account and key ids from keys that exist, and accounts and keys are never
-- deleted (keys are revoked, accounts closed in place). The ledger keeps its foreign key: money
-- rows are few per call and worth the check.
ALTER TABLE usage_records DROP CONSTRAINT IF EXISTS usage_records_user_id_fkey;
ALTER TABLE usage_records DROP CONSTRAINT IF EXISTS usage_records_api_key_id_fkey;
