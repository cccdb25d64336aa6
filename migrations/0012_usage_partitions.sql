-- Usage records partitioned by month (created_at), and daily rollups the usage report reads.
-- Safe to run twice: the conversion only runs while usage_records is a plain table.

DO $$
DECLARE
  first_month date;
  m date;
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = 'usage_records'::regclass) = 'p' THEN
    RETURN;
  END IF;

  CREATE TABLE usage_records_p (LIKE usage_records INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (created_at);
  -- A partitioned key must hold the partition column; a replayed record carries its first
  -- created_at, so (id, created_at) keeps "one record, one charge per call" as (id) did.
  ALTER TABLE usage_records_p ADD PRIMARY KEY (id, created_at);
  CREATE TABLE usage_records_default PARTITION OF usage_records_p DEFAULT;

  first_month := date_trunc('month', coalesce((SELECT min(created_at) FROM usage_records), now()) AT TIME ZONE 'UTC')::date;
  m := first_month;
  WHILE m <= (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months')::date LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF usage_records_p FOR VALUES FROM (%L) TO (%L)',
      'usage_records_' || to_char(m, 'YYYY_MM'), (m::timestamp AT TIME ZONE 'UTC'), ((m + interval '1 month')::timestamp AT TIME ZONE 'UTC'));
    m := (m + interval '1 month')::date;
  END LOOP;

  INSERT INTO usage_records_p SELECT * FROM usage_records;
  -- The insertion sequence moves to the new table before the old one goes.
  ALTER SEQUENCE usage_records_seq_seq OWNED BY NONE;
  DROP TABLE usage_records;
  ALTER TABLE usage_records_p RENAME TO usage_records;
  ALTER SEQUENCE usage_records_seq_seq OWNED BY usage_records.seq;
END $$;

CREATE INDEX IF NOT EXISTS usage_records_user_time ON usage_records (user_id, created_at DESC);
CREATE INDEX IF NOT EXISTS usage_records_key_time ON usage_records (api_key_id, created_at DESC);
CREATE INDEX IF NOT EXISTS usage_records_request ON usage_records (request_id);
CREATE INDEX IF NOT EXISTS usage_records_user_seq ON usage_records (user_id, seq DESC);
CREATE INDEX IF NOT EXISTS usage_records_user_session ON usage_records (user_id, session_id) WHERE session_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS usage_records_user_request ON usage_records (user_id, request_id);

-- Daily rollups per account and UTC day, one table per dimension the report groups by, so that
-- each stays small however many keys, models and tags an account combines: by model and by key
-- (every request once), and by tag (a request on each of its tags; '' = untagged). The report
-- reads whole days here and only the partial days at a range's edges from the records.
CREATE TABLE IF NOT EXISTS usage_daily_models (
  user_id uuid NOT NULL, day date NOT NULL, model text NOT NULL,
  requests bigint NOT NULL DEFAULT 0, errors bigint NOT NULL DEFAULT 0, input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0, cached_tokens bigint NOT NULL DEFAULT 0, charged_micro_usd bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, day, model)
);
CREATE TABLE IF NOT EXISTS usage_daily_keys (
  user_id uuid NOT NULL, day date NOT NULL, api_key_id uuid NOT NULL,
  requests bigint NOT NULL DEFAULT 0, errors bigint NOT NULL DEFAULT 0, input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0, cached_tokens bigint NOT NULL DEFAULT 0, charged_micro_usd bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, day, api_key_id)
);
CREATE TABLE IF NOT EXISTS usage_daily_tags (
  user_id uuid NOT NULL, day date NOT NULL, tag text NOT NULL,
  requests bigint NOT NULL DEFAULT 0, errors bigint NOT NULL DEFAULT 0, input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0, cached_tokens bigint NOT NULL DEFAULT 0, charged_micro_usd bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, day, tag)
);

-- Records written before the rollups existed (a record without a key counts under the zero uuid),
-- written in key order as the drain lays them out (a day's rows together): a report reads few pages.
INSERT INTO usage_daily_models (user_id, day, model, requests, errors, input_tokens, output_tokens, cached_tokens, charged_micro_usd)
SELECT user_id, (created_at AT TIME ZONE 'UTC')::date, model, count(*), count(*) FILTER (WHERE status_code >= 400),
  sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(charged_micro_usd)
FROM usage_records GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 ON CONFLICT DO NOTHING;
INSERT INTO usage_daily_keys (user_id, day, api_key_id, requests, errors, input_tokens, output_tokens, cached_tokens, charged_micro_usd)
SELECT user_id, (created_at AT TIME ZONE 'UTC')::date, coalesce(api_key_id, '00000000-0000-0000-0000-000000000000'), count(*),
  count(*) FILTER (WHERE status_code >= 400), sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(charged_micro_usd)
FROM usage_records GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 ON CONFLICT DO NOTHING;
INSERT INTO usage_daily_tags (user_id, day, tag, requests, errors, input_tokens, output_tokens, cached_tokens, charged_micro_usd)
SELECT r.user_id, (r.created_at AT TIME ZONE 'UTC')::date, t.tag,
  count(*), count(*) FILTER (WHERE r.status_code >= 400), sum(r.input_tokens), sum(r.output_tokens), sum(r.cached_tokens), sum(r.charged_micro_usd)
FROM usage_records r CROSS JOIN LATERAL unnest(CASE WHEN cardinality(r.tags) = 0 THEN ARRAY['']::text[] ELSE r.tags END) AS t(tag)
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 ON CONFLICT DO NOTHING;
