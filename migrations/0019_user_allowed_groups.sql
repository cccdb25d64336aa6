-- Catalog groups the operator lets one user choose for their keys in the console (CLI
-- `user:groups`), beside those marked `self_service: true` in the catalog (issue 27, M2).
ALTER TABLE users ADD COLUMN IF NOT EXISTS allowed_groups text[] NOT NULL DEFAULT '{}';
