/**
 * The usage queue: a Redis list the STEP script appends one record to per call (RPUSH, the record's
 * JSON with its charge), drained from the head in batches by whichever worker holds the drain lock.
 * Entries leave the list only after their batch is committed in Postgres, and the same step lowers
 * the undrained counters, so a crash anywhere in between replays the batch (idempotent in Postgres)
 * and lowers each counter exactly once.
 */

/**
 * KEYS queue lock · ARGV token lockTtlMs count → up to `count` records from the head, taking the
 * lock; nil while another drainer holds it. An empty queue answers an empty list and frees the lock.
 */
export const CLAIM_USAGE = `
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[1] then return false end
local items = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)
if #items == 0 then
  if holder then redis.call('DEL', KEYS[2]) end
  return items
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return items
`;

/**
 * KEYS queue lock dead · ARGV token count nDead, the dead records, then pairs (undrained counter,
 * amount) → count, or -1 when the lock was lost meanwhile (another drainer replays the batch).
 * Removes the batch from the queue, keeps records Postgres refused in the dead-letter list, lowers
 * the counters of what was written, and frees the lock.
 */
export const ACK_USAGE = `
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
`;

/**
 * KEYS legacy stream, queue · ARGV count → entries moved. Releases before the usage queue appended
 * each record to a stream (field `r`: the event's JSON, `c`: its charge). Moves up to `count` of its
 * entries, oldest first, onto the queue in the queue's form (the JSON with its charge), and deletes
 * the stream once it is empty. The charges are already in the undrained counters, which the drain
 * lowers when it writes the records, as for any record.
 */
export const MOVE_LEGACY_USAGE = `
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
`;
