-- Webhooks (docs/reference/webhooks.md): an account's endpoints, the events that announce a task's
-- (or batch's) end — written in the same transaction as the state change that they announce, a
-- transactional outbox — one delivery per event and endpoint subscribed to it when it happened, and
-- every attempt of each delivery.
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  id                         text PRIMARY KEY,
  user_id                    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  url                        text NOT NULL,
  events                     text[] NOT NULL,
  description                text,
  enabled                    boolean NOT NULL DEFAULT true,
  -- `whsec_` + base64: deliveries are signed with it, so it is kept (not a hash).
  secret                     text NOT NULL,
  -- The secret before the last rotation, still signing beside the new one until it expires (24 h).
  previous_secret            text,
  previous_secret_expires_at timestamptz,
  -- The first failed attempt since the last delivered one; 3 days of failing disables the endpoint.
  failing_since              timestamptz,
  disabled_reason            text CHECK (disabled_reason IN ('owner', 'failing', 'account_closed')),
  disabled_at                timestamptz,
  -- Set once the owner was mailed that the endpoint was disabled for failing (the sweep retries until then).
  owner_notified_at          timestamptz,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  updated_at                 timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS webhook_endpoints_user ON webhook_endpoints (user_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS webhook_endpoints_unnotified ON webhook_endpoints (disabled_at)
  WHERE disabled_reason = 'failing' AND owner_notified_at IS NULL;

CREATE TABLE IF NOT EXISTS webhook_events (
  -- `evt_…`: the `webhook-id` of every attempt, to every endpoint.
  id         text PRIMARY KEY,
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type       text NOT NULL,
  -- What the event is about: a task, a batch, or the endpoint of a `webhook.test`.
  subject_id text NOT NULL,
  -- The body exactly as every attempt sends it (the signature covers these bytes).
  payload    text NOT NULL,
  created_at timestamptz NOT NULL
);
-- A task ends once: never two events of one kind for it, whatever runs twice.
CREATE UNIQUE INDEX IF NOT EXISTS webhook_events_once ON webhook_events (subject_id, type) WHERE type <> 'webhook.test';
CREATE INDEX IF NOT EXISTS webhook_events_created ON webhook_events (created_at);

CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id              text PRIMARY KEY,
  event_id        text NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  endpoint_id     text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  user_id         uuid NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  -- Attempts started (a worker that died mid-attempt counted one it could not record).
  attempts        integer NOT NULL DEFAULT 0,
  -- When the next attempt is due; null once delivered or failed.
  next_attempt_at timestamptz,
  -- The attempt in flight: when it started and the job running it (no other job starts one meanwhile).
  attempt_started_at timestamptz,
  attempt_job     text,
  -- Past this, a failed attempt is the last: 3 days from the event, or from a redelivery.
  retry_until     timestamptz NOT NULL,
  last_error      text,
  delivered_at    timestamptz,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

CREATE TABLE IF NOT EXISTS webhook_delivery_attempts (
  id               bigserial PRIMARY KEY,
  delivery_id      text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempted_at     timestamptz NOT NULL,
  -- Null when no HTTP answer came (refused address, connection error, timeout).
  status_code      integer,
  duration_ms      integer NOT NULL,
  -- At most 1 KiB of the answer's body.
  response_excerpt text NOT NULL DEFAULT '',
  error            text
);
CREATE INDEX IF NOT EXISTS webhook_delivery_attempts_delivery ON webhook_delivery_attempts (delivery_id, id);
