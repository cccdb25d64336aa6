-- Content logging (off by default) and dataset exports of usage records with their scores.
ALTER TABLE users ADD COLUMN IF NOT EXISTS log_content boolean NOT NULL DEFAULT false;

CREATE TABLE IF NOT EXISTS dataset_exports (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  status      text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  filters     jsonb NOT NULL,
  object_key  text,
  records     integer,
  error       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX IF NOT EXISTS dataset_exports_user ON dataset_exports (user_id, created_at DESC);
