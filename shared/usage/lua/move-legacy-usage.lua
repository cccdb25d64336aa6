-- KEYS legacy stream, queue · ARGV count → entries moved. Releases before the usage queue appended
-- each record to a stream (field `r`: the event's JSON, `c`: its charge). Moves up to `count` of its
-- entries, oldest first, onto the queue in the queue's form (the JSON with its charge), and deletes
-- the stream once it is empty. The charges are already in the undrained counters, which the drain
-- lowers when it writes the records, as for any record.
local entries = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', ARGV[1])
for _, e in ipairs(entries) do
  local f, r, c = e[2], nil, '0'
  for i = 1, #f, 2 do
    if f[i] == 'r' then r = f[i + 1] elseif f[i] == 'c' then c = f[i + 1] end
  end
  if r then redis.call('RPUSH', KEYS[2], string.sub(r, 1, -2) .. ',"charged_micro_usd":' .. c .. '}') end
  redis.call('XDEL', KEYS[1], e[1])
end
if redis.call('XLEN', KEYS[1]) == 0 then redis.call('DEL', KEYS[1]) end
return #entries
