-- KEYS queue lock dead · ARGV token count nDead, the dead records, then pairs (undrained counter,
-- amount) → count, or -1 when the lock was lost meanwhile (another drainer replays the batch).
-- Removes the batch from the queue, keeps records Postgres refused in the dead-letter list, lowers
-- the counters of what was written, and frees the lock.
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return -1 end
local n, nd = tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('LTRIM', KEYS[1], n, -1)
if nd > 0 then
  for i = 4, 3 + nd do redis.call('RPUSH', KEYS[3], ARGV[i]) end
  redis.call('LTRIM', KEYS[3], -100000, -1)
end
for i = 4 + nd, #ARGV, 2 do redis.call('DECRBY', ARGV[i], ARGV[i + 1]) end
redis.call('DEL', KEYS[2])
return n
