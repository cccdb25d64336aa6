-- The exact-match response cache (docs/reference/cache.md): opt-in per key and per preset (seconds an
-- answer stays cached; null = not set there), and the usage record of a call answered from the cache.
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS cache_ttl_seconds integer
  CHECK (cache_ttl_seconds IS NULL OR cache_ttl_seconds BETWEEN 0 AND 2592000);
ALTER TABLE routing_presets ADD COLUMN IF NOT EXISTS cache_ttl_seconds integer
  CHECK (cache_ttl_seconds IS NULL OR cache_ttl_seconds BETWEEN 0 AND 2592000);
ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS cache_hit boolean NOT NULL DEFAULT false;
-- Reports count the hits of each group (no record before this migration was one: 0 is exact).
ALTER TABLE usage_daily_models ADD COLUMN IF NOT EXISTS cache_hits bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_daily_keys ADD COLUMN IF NOT EXISTS cache_hits bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_daily_tags ADD COLUMN IF NOT EXISTS cache_hits bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_hourly_models ADD COLUMN IF NOT EXISTS cache_hits bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_hourly_keys ADD COLUMN IF NOT EXISTS cache_hits bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_hourly_tags ADD COLUMN IF NOT EXISTS cache_hits bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_weekly_keys ADD COLUMN IF NOT EXISTS cache_hits bigint NOT NULL DEFAULT 0;
