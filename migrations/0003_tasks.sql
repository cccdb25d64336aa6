-- Asynchronous jobs (video tasks, image tasks) and the idempotency of creating calls.

CREATE TABLE IF NOT EXISTS tasks (
  id                 text PRIMARY KEY,
  kind               text NOT NULL CHECK (kind IN ('video', 'image')),
  user_id            uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  api_key_id         uuid REFERENCES api_keys (id) ON DELETE SET NULL,
  request_id         text NOT NULL,
  model              text NOT NULL,
  provider           text NOT NULL,
  upstream_model     text NOT NULL,
  -- What the client sees: queued → running → succeeded | failed | cancelled | expired.
  status             text NOT NULL DEFAULT 'queued'
                       CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired')),
  -- Where the workflow is; each job checks it before acting, so running a job twice changes nothing.
  stage              text NOT NULL DEFAULT 'submit' CHECK (stage IN ('submit', 'poll', 'mirror', 'settle', 'done')),
  request            jsonb NOT NULL,
  upstream_id        text,
  progress           integer,
  provider_url       text,
  provider_urls      text[],
  stored_keys        text[],
  result_size        bigint,
  error_code         text,
  error_message      text,
  reserved_micro_usd bigint NOT NULL DEFAULT 0 CHECK (reserved_micro_usd >= 0),
  charged_micro_usd  bigint NOT NULL DEFAULT 0 CHECK (charged_micro_usd >= 0),
  usage              jsonb,
  tags               text[] NOT NULL DEFAULT '{}',
  cancel_requested   boolean NOT NULL DEFAULT false,
  submit_attempts    integer NOT NULL DEFAULT 0,
  polls              integer NOT NULL DEFAULT 0,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL DEFAULT now(),
  started_at         timestamptz,
  finished_at        timestamptz,
  -- Polling stops here: the task ends `expired` and costs nothing.
  deadline_at        timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_user_kind ON tasks (user_id, kind, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS tasks_open ON tasks (stage) WHERE stage <> 'done';

-- A creating call's first result, replayed for the same key within 24 hours. The primary key is
-- what makes a duplicate impossible; a second insert waits for the first transaction and then
-- finds its row.
CREATE TABLE IF NOT EXISTS idempotency_keys (
  user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  api_key_id      uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  endpoint        text NOT NULL,
  key             text NOT NULL,
  request_hash    bytea NOT NULL,
  response_status integer NOT NULL,
  -- json, not jsonb: a replay must be the first answer byte for byte (jsonb reorders keys).
  response_body   json NOT NULL,
  task_id         text,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  PRIMARY KEY (user_id, api_key_id, endpoint, key)
);
CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at);
