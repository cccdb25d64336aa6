-- KEYS entry account keyIndex bytes sizes expiries · ARGV value ttlMs size maxBytes now → 1 stored,
-- 0 when the cache's byte budget would be exceeded (Redis runs with noeviction: the cache bounds itself).
-- First gives back the bytes of up to 100 entries Redis already expired, so the count follows the TTLs.
local now = tonumber(ARGV[5])
local gone = redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now, 'LIMIT', 0, 100)
for _, member in ipairs(gone) do
  local size = redis.call('HGET', KEYS[5], member)
  if size then
    redis.call('DECRBY', KEYS[4], size)
    redis.call('HDEL', KEYS[5], member)
  end
  redis.call('ZREM', KEYS[6], member)
end
local size = tonumber(ARGV[3])
local old = tonumber(redis.call('HGET', KEYS[5], KEYS[1]) or '0')
local used = tonumber(redis.call('GET', KEYS[4]) or '0') - old
if used + size > tonumber(ARGV[4]) then return 0 end
local ttl = tonumber(ARGV[2])
local expiry = now + ttl
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('INCRBY', KEYS[4], size - old)
redis.call('HSET', KEYS[5], KEYS[1], size)
redis.call('ZADD', KEYS[6], expiry, KEYS[1])
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], expiry, KEYS[1])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return 1
