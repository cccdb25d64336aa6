-- Loads a key's spend counters into Redis (shared/billing/quota.ts).
-- KEYS t d m epoch · ARGV epoch_seen total day month → 1 | 0 | -1, like load-balance.lua.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if (redis.call('GET', KEYS[4]) or '0') ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[3], 'PX', 259200000)
redis.call('SET', KEYS[3], ARGV[4], 'PX', 3456000000)
return 1
