-- The exact-match response cache (docs/reference/cache.md): opt-in per key and per preset (seconds an
-- answer stays cached; null = not set there), and the usage record of a call answered from the cache.
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS cache_ttl_seconds integer
  CHECK (cache_ttl_seconds IS NULL OR cache_ttl_seconds BETWEEN 0 AND 2592000);
ALTER TABLE routing_presets ADD COLUMN IF NOT EXISTS cache_ttl_seconds integer
  CHECK (cache_ttl_seconds IS NULL OR cache_ttl_seconds BETWEEN 0 AND 2592000);
ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS cache_hit boolean NOT NULL DEFAULT false;
