-- Images the gateway fetched and keeps for an upstream (models with accepts_urls: false), behind
-- signed links: each is removed by the maintenance sweep once its link has expired.
CREATE TABLE IF NOT EXISTS fetched_objects (
  object_key text PRIMARY KEY,
  user_id    text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS fetched_objects_expiry ON fetched_objects (expires_at);
