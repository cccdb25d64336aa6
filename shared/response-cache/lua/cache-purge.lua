-- KEYS index bytes sizes expiries · ARGV count → entries removed (at most count; the caller repeats
-- until 0). Deletes the entries an index (an account's, or a key's) names, with their bytes, and
-- takes each out of its account's index too (`<prefix>rc:{<account>}:<digest>` → `…:idx`).
local members = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
for _, member in ipairs(members) do
  redis.call('DEL', member)
  local size = redis.call('HGET', KEYS[3], member)
  if size then
    redis.call('DECRBY', KEYS[2], size)
    redis.call('HDEL', KEYS[3], member)
  end
  redis.call('ZREM', KEYS[4], member)
  redis.call('ZREM', KEYS[1], member)
  redis.call('ZREM', string.match(member, '^(.*):[^:]*$') .. ':idx', member)
end
return #members
