-- Loads a key's spend counters into Redis (shared/billing/quota.ts).
-- KEYS t d m w legacyTotal epoch · ARGV epoch_seen total day month week → 1 | 0 | -1, like load-balance.lua.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if (redis.call('GET', KEYS[6]) or '0') ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[3], 'PX', 259200000)
redis.call('SET', KEYS[3], ARGV[4], 'PX', 3456000000)
redis.call('SET', KEYS[4], ARGV[5], 'PX', 864000000)
-- The total under the name of releases that kept no week counter: superseded by KEYS[1].
redis.call('DEL', KEYS[5])
return 1
