-- Loads an account's spendable balance into Redis (shared/billing/balance.ts).
-- KEYS bal epoch · ARGV epoch_seen value → 1 set | 0 already loaded | -1 stale snapshot
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
