-- Private assets: reserved uploads and the assets they become once confirmed.
CREATE TABLE IF NOT EXISTS asset_uploads (
  id           text PRIMARY KEY,
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- null: uploaded in the console
  api_key_id   uuid,
  filename     text NOT NULL,
  content_type text NOT NULL,
  size_bytes   bigint NOT NULL CHECK (size_bytes > 0),
  sha256       text,
  object_key   text NOT NULL,
  expires_at   timestamptz NOT NULL,
  asset_id     text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS asset_uploads_expiry ON asset_uploads (expires_at) WHERE asset_id IS NULL;

CREATE TABLE IF NOT EXISTS assets (
  id           text PRIMARY KEY,
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  api_key_id   uuid,
  upload_id    text NOT NULL UNIQUE,
  filename     text NOT NULL,
  content_type text NOT NULL,
  size_bytes   bigint NOT NULL,
  width        integer NOT NULL,
  height       integer NOT NULL,
  sha256       text NOT NULL,
  object_key   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS assets_user ON assets (user_id, created_at DESC, id DESC);
