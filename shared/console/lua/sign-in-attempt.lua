-- One sign-in try counted before its check (shared/console/sign-in-guard.ts).
-- KEYS: failures, lock; ARGV: window ms, threshold. → {1, ms until retry} while locked or while
-- the tries in flight already reach the threshold; else {0, n}: this try is the n-th in the window.
local ttl = redis.call('PTTL', KEYS[2])
if ttl > 0 then return {1, ttl} end
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1], 'NX')
if n > tonumber(ARGV[2]) then
  redis.call('DECR', KEYS[1])
  return {1, 1000}
end
return {0, n}
