-- Console account security (shared/console/): two-step verification, e-mail verification of
-- sign-ups, closed accounts, linked sign-in providers and passkeys.
ALTER TABLE users ADD COLUMN IF NOT EXISTS two_factor_enabled boolean NOT NULL DEFAULT false;
-- Accounts made by an operator (CLI) count as verified; a console sign-up sets NULL until its code.
ALTER TABLE users ADD COLUMN IF NOT EXISTS email_verified_at timestamptz DEFAULT now();
-- A closed account keeps its id, ledger and usage; its e-mail is released and it cannot sign in.
ALTER TABLE users ADD COLUMN IF NOT EXISTS closed_at timestamptz;

-- A third-party (OpenID Connect) account linked to one user: one per (provider, subject), and at
-- most one account of each provider per user.
CREATE TABLE IF NOT EXISTS user_identities (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider   text NOT NULL,
  subject    text NOT NULL,
  email      text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT user_identities_subject UNIQUE (provider, subject),
  CONSTRAINT user_identities_one_per_provider UNIQUE (user_id, provider)
);

-- WebAuthn credentials (@simplewebauthn/server): the public key and the signature counter.
CREATE TABLE IF NOT EXISTS passkeys (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  credential_id text NOT NULL UNIQUE,
  public_key    bytea NOT NULL,
  counter       bigint NOT NULL DEFAULT 0,
  transports    text[] NOT NULL DEFAULT '{}',
  name          text NOT NULL DEFAULT '',
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz
);
CREATE INDEX IF NOT EXISTS passkeys_user ON passkeys (user_id, created_at);
