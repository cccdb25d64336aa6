-- Files and batches (docs/reference/batches.md): uploaded batch input files and the output/error
-- files the workers write (bytes in object storage, the row says whose they are), the batches,
-- and one row per input line, where each line's result is stored before it counts — so a worker
-- killed mid-batch resumes it with no line run or charged twice.
CREATE TABLE IF NOT EXISTS files (
  -- `file-…` (the signed links of stored results are `/v1/files/<token>` beside them).
  id          text PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose     text NOT NULL CHECK (purpose IN ('batch', 'batch_output')),
  filename    text NOT NULL,
  bytes       bigint NOT NULL,
  lines       integer NOT NULL,
  object_key  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS files_user ON files (user_id, created_at DESC, id DESC);

CREATE TABLE IF NOT EXISTS batches (
  -- `batch_…` (OpenAI) or `msgbatch_…` (Message Batches): one lifecycle, two views.
  id                 text PRIMARY KEY,
  user_id            uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The key the lines run with (its limits, budget and group), as its synchronous calls would.
  api_key_id         uuid REFERENCES api_keys (id) ON DELETE SET NULL,
  -- Which API made it: `openai` (Batch API, input file) or `anthropic` (Message Batches, inline requests).
  api                text NOT NULL CHECK (api IN ('openai', 'anthropic')),
  endpoint           text NOT NULL,
  input_file_id      text,
  completion_window  text NOT NULL DEFAULT '24h',
  status             text NOT NULL CHECK (status IN ('validating', 'failed', 'in_progress', 'finalizing',
                       'completed', 'expired', 'cancelling', 'cancelled')),
  -- The validation's refusals: [{code, message, param, line}].
  errors             jsonb,
  metadata           jsonb,
  output_file_id     text,
  error_file_id      text,
  -- Counts and usage are written when the batch ends; while it runs they are read from its lines.
  total              integer NOT NULL DEFAULT 0,
  completed          integer NOT NULL DEFAULT 0,
  failed             integer NOT NULL DEFAULT 0,
  input_tokens       bigint NOT NULL DEFAULT 0,
  output_tokens      bigint NOT NULL DEFAULT 0,
  cached_tokens      bigint NOT NULL DEFAULT 0,
  created_at         timestamptz NOT NULL DEFAULT now(),
  expires_at         timestamptz NOT NULL,
  in_progress_at     timestamptz,
  finalizing_at      timestamptz,
  completed_at       timestamptz,
  failed_at          timestamptz,
  expired_at         timestamptz,
  cancelling_at      timestamptz,
  cancelled_at       timestamptz
);
CREATE INDEX IF NOT EXISTS batches_user ON batches (user_id, api, created_at DESC, id DESC);
-- The maintenance sweep's re-drive: batches not ended.
CREATE INDEX IF NOT EXISTS batches_open ON batches (created_at)
  WHERE status IN ('validating', 'in_progress', 'finalizing', 'cancelling');

CREATE TABLE IF NOT EXISTS batch_lines (
  batch_id      text NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
  -- 1-based, the input file's line number (the error file and errors.data name it).
  line          integer NOT NULL,
  custom_id     text NOT NULL,
  -- json, not jsonb: kept as sent (key order too), and read back as it was written.
  body          json NOT NULL,
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  -- The request id the line's call carries (its usage record and its one charge).
  request_id    text,
  status_code   integer,
  -- The answer (succeeded) or the error body in the endpoint's protocol (failed).
  response      json,
  input_tokens  integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  cached_tokens integer NOT NULL DEFAULT 0,
  finished_at   timestamptz,
  PRIMARY KEY (batch_id, line),
  UNIQUE (batch_id, custom_id)
);
CREATE INDEX IF NOT EXISTS batch_lines_pending ON batch_lines (batch_id, line) WHERE status = 'pending';
