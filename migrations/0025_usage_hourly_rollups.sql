-- Hourly rollups per account and UTC hour, one table per dimension like the daily ones (0012), and a
-- weekly one by key. A report reads whole weeks (by key) and days from the coarser rollups, the whole
-- hours of its edge days from the hourly ones, and only the partial hours at its very edges from the
-- records (docs/decisions/0010-usage-rollups.md). The usage drain keeps them all in the same
-- transaction as the records.
CREATE TABLE IF NOT EXISTS usage_hourly_models (
  user_id uuid NOT NULL, hour timestamptz NOT NULL, model text NOT NULL,
  requests bigint NOT NULL DEFAULT 0, errors bigint NOT NULL DEFAULT 0, input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0, cached_tokens bigint NOT NULL DEFAULT 0, charged_micro_usd bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, hour, model)
);
CREATE TABLE IF NOT EXISTS usage_hourly_keys (
  user_id uuid NOT NULL, hour timestamptz NOT NULL, api_key_id uuid NOT NULL,
  requests bigint NOT NULL DEFAULT 0, errors bigint NOT NULL DEFAULT 0, input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0, cached_tokens bigint NOT NULL DEFAULT 0, charged_micro_usd bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, hour, api_key_id)
);
CREATE TABLE IF NOT EXISTS usage_hourly_tags (
  user_id uuid NOT NULL, hour timestamptz NOT NULL, tag text NOT NULL,
  requests bigint NOT NULL DEFAULT 0, errors bigint NOT NULL DEFAULT 0, input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0, cached_tokens bigint NOT NULL DEFAULT 0, charged_micro_usd bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, hour, tag)
);

-- Records written before the hourly rollups existed, in key order as the drain lays them out (an
-- hour's rows together: a report reads few pages). The hour is truncated in UTC whatever the
-- session's time zone (a zone with a half-hour offset would otherwise split UTC hours).
INSERT INTO usage_hourly_models (user_id, hour, model, requests, errors, input_tokens, output_tokens, cached_tokens, charged_micro_usd)
SELECT user_id, date_trunc('hour', created_at, 'UTC'), model, count(*), count(*) FILTER (WHERE status_code >= 400),
  sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(charged_micro_usd)
FROM usage_records GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 ON CONFLICT DO NOTHING;
INSERT INTO usage_hourly_keys (user_id, hour, api_key_id, requests, errors, input_tokens, output_tokens, cached_tokens, charged_micro_usd)
SELECT user_id, date_trunc('hour', created_at, 'UTC'), coalesce(api_key_id, '00000000-0000-0000-0000-000000000000'), count(*),
  count(*) FILTER (WHERE status_code >= 400), sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(charged_micro_usd)
FROM usage_records GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 ON CONFLICT DO NOTHING;
INSERT INTO usage_hourly_tags (user_id, hour, tag, requests, errors, input_tokens, output_tokens, cached_tokens, charged_micro_usd)
SELECT r.user_id, date_trunc('hour', r.created_at, 'UTC'), t.tag,
  count(*), count(*) FILTER (WHERE r.status_code >= 400), sum(r.input_tokens), sum(r.output_tokens), sum(r.cached_tokens), sum(r.charged_micro_usd)
FROM usage_records r CROSS JOIN LATERAL unnest(CASE WHEN cardinality(r.tags) = 0 THEN ARRAY['']::text[] ELSE r.tags END) AS t(tag)
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 ON CONFLICT DO NOTHING;

-- By key also per week (ISO, from Monday 00:00 UTC): an account with many keys has up to a row per
-- key and day, so a 93-day report by key reads whole weeks here and only the days around them daily.
CREATE TABLE IF NOT EXISTS usage_weekly_keys (
  user_id uuid NOT NULL, week date NOT NULL, api_key_id uuid NOT NULL,
  requests bigint NOT NULL DEFAULT 0, errors bigint NOT NULL DEFAULT 0, input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0, cached_tokens bigint NOT NULL DEFAULT 0, charged_micro_usd bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, week, api_key_id)
);
INSERT INTO usage_weekly_keys (user_id, week, api_key_id, requests, errors, input_tokens, output_tokens, cached_tokens, charged_micro_usd)
SELECT user_id, date_trunc('week', created_at AT TIME ZONE 'UTC')::date, coalesce(api_key_id, '00000000-0000-0000-0000-000000000000'),
  count(*), count(*) FILTER (WHERE status_code >= 400), sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(charged_micro_usd)
FROM usage_records GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 ON CONFLICT DO NOTHING;
