-- E-mailed one-time codes: bound to one user and one action, stored as an HMAC (never the digits),
-- single use, short-lived, and dead after too many wrong tries (shared/console/codes.ts).
CREATE TABLE IF NOT EXISTS verification_codes (
  id         bigserial PRIMARY KEY,
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  action     text NOT NULL,
  code_hash  bytea NOT NULL,
  attempts   integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX IF NOT EXISTS verification_codes_live ON verification_codes (user_id, action, created_at DESC) WHERE used_at IS NULL;
