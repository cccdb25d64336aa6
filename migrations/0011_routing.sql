-- Routing presets, prompt templates with weighted versions, their bindings to keys, and what the
-- routing decided on each usage record and task.

CREATE TABLE IF NOT EXISTS routing_presets (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id             uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  slug                text NOT NULL CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,63}$'),
  models              text[] NOT NULL CHECK (cardinality(models) BETWEEN 1 AND 20),
  strategy            text NOT NULL DEFAULT 'ordered' CHECK (strategy IN ('ordered', 'cost', 'latency', 'weighted')),
  -- One weight per model, only with the weighted strategy.
  weights             integer[],
  -- {order: [provider ids], only: [provider ids]}
  preferred_providers jsonb,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, slug)
);

CREATE TABLE IF NOT EXISTS prompt_templates (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, name)
);

CREATE TABLE IF NOT EXISTS prompt_template_versions (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  template_id uuid NOT NULL REFERENCES prompt_templates (id) ON DELETE CASCADE,
  label       text NOT NULL,
  text        text NOT NULL,
  weight      integer NOT NULL DEFAULT 1 CHECK (weight >= 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (template_id, label)
);

-- A key runs at most one template (whose versions are the A/B arms).
CREATE TABLE IF NOT EXISTS prompt_template_bindings (
  api_key_id  uuid PRIMARY KEY REFERENCES api_keys (id) ON DELETE CASCADE,
  template_id uuid NOT NULL REFERENCES prompt_templates (id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS prompt_template_bindings_template ON prompt_template_bindings (template_id);

-- A key's default model when a request names none: a preset slug of the key's account.
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS default_preset text;

ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS upstream_account text;
ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS template_version_id uuid;
ALTER TABLE tasks ADD COLUMN IF NOT EXISTS upstream_account text;
