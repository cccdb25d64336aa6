-- The private protocol (`/server`): every call is a durable record, found again by its id (the
-- `task_id` clients see) or by the client's `clientRequestId` (through idempotency_keys, endpoint
-- `server`, which also makes a repeated id within 24 hours return this call and never run it again).
-- Chat calls run as a `private-chat` job; video and image calls point at their task.
CREATE TABLE IF NOT EXISTS private_calls (
  id                text PRIMARY KEY,
  user_id           uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  api_key_id        uuid REFERENCES api_keys (id) ON DELETE SET NULL,
  client_request_id text NOT NULL,
  request_id        text NOT NULL,
  kind              text NOT NULL CHECK (kind IN ('chat', 'video', 'image')),
  model             text NOT NULL,
  stream            boolean NOT NULL DEFAULT false,
  -- The standard call's body (`input` with the model set).
  request           jsonb NOT NULL,
  task_id           text,
  status            text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired')),
  result            jsonb,
  error             jsonb,
  created_at        timestamptz NOT NULL,
  finished_at       timestamptz
);
CREATE INDEX IF NOT EXISTS private_calls_open ON private_calls (created_at) WHERE status IN ('queued', 'running');
