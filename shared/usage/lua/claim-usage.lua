-- KEYS queue lock · ARGV token lockTtlMs count → up to `count` records from the head, taking the
-- lock; nil while another drainer holds it. An empty queue answers an empty list and frees the lock.
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[1] then return false end
local items = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)
if #items == 0 then
  if holder then redis.call('DEL', KEYS[2]) end
  return items
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return items
