-- The private protocol's chat calls (`/server`): each a durable record, found again by its id (the
-- `task_id` clients see) or by the client's `clientRequestId` (through idempotency_keys, endpoint
-- `server`, which also makes a repeated id within 24 hours return this call and never run it again),
-- run by a `private-chat` job. A video or image call is its task (tasks, keyed by the same id as the
-- task's Idempotency-Key): nothing is stored here for it.
CREATE TABLE IF NOT EXISTS private_calls (
  id                text PRIMARY KEY,
  user_id           uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  api_key_id        uuid REFERENCES api_keys (id) ON DELETE SET NULL,
  client_request_id text NOT NULL,
  request_id        text NOT NULL,
  kind              text NOT NULL CHECK (kind IN ('chat')),
  model             text NOT NULL,
  stream            boolean NOT NULL DEFAULT false,
  -- The chat-completions body (`input` with the model set).
  request           jsonb NOT NULL,
  status            text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired')),
  result            jsonb,
  error             jsonb,
  created_at        timestamptz NOT NULL,
  finished_at       timestamptz
);
CREATE INDEX IF NOT EXISTS private_calls_open ON private_calls (created_at) WHERE status IN ('queued', 'running');
