-- Keeps in-flight calls' holds alive (shared/limits/lease-renewer.ts).
-- ARGV: now, lease expiry, reservation expiry, then per call: id, resv key, number of lease keys,
-- the lease keys. → the number of leases renewed.
local A = ARGV
local n = 0
local i = 4
while i <= #A do
  local id, resv, nc = A[i], A[i + 1], tonumber(A[i + 2])
  local v = redis.call('HGET', resv, id)
  if v then redis.call('HSET', resv, id, A[3] .. string.sub(v, string.find(v, ':', 1, true), -1)) end
  for k = i + 3, i + 2 + nc do
    if redis.call('ZADD', A[k], 'XX', 'CH', A[2], id) == 1 then n = n + 1 end
    -- The set's own TTL (set at admission) must follow its leases, or a long call loses its slot.
    redis.call('PEXPIRE', A[k], A[2] - A[1])
  end
  i = i + 3 + nc
end
return n
