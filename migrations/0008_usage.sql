-- Usage reports, logs and scores: a client session id on usage records, an insertion sequence that
-- pages the logs stably while records keep arriving, and scores on requests or sessions.

ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS session_id text;
ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS seq bigserial;
CREATE INDEX IF NOT EXISTS usage_records_user_seq ON usage_records (user_id, seq DESC);
CREATE INDEX IF NOT EXISTS usage_records_user_session ON usage_records (user_id, session_id) WHERE session_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS usage_records_user_request ON usage_records (user_id, request_id);

CREATE TABLE IF NOT EXISTS scores (
  id         bigserial PRIMARY KEY,
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  api_key_id uuid,
  request_id text,
  session_id text,
  name       text NOT NULL CHECK (name ~ '^[a-z0-9._-]{1,40}$'),
  value      double precision NOT NULL CHECK (value BETWEEN -1000000 AND 1000000),
  comment    text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((request_id IS NULL) <> (session_id IS NULL))
);
-- A second score with the same name on the same target replaces the value.
CREATE UNIQUE INDEX IF NOT EXISTS scores_request_name ON scores (user_id, request_id, name) WHERE request_id IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS scores_session_name ON scores (user_id, session_id, name) WHERE session_id IS NOT NULL;
