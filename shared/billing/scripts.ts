/**
 * Loading and crediting the money state that the admission and finish scripts (shared/limits/
 * scripts.ts) work on. `epoch` is bumped by anything that moves money while a counter is not
 * loaded, so a concurrent loader knows its snapshot is stale and loads again.
 */

/** KEYS bal epoch · ARGV epoch_seen value → 1 set | 0 already loaded | -1 stale snapshot */
export const LOAD_BALANCE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;

/** KEYS t d m epoch · ARGV epoch_seen total day month → 1 | 0 | -1, like LOAD_BALANCE. */
export const LOAD_QUOTA = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if (redis.call('GET', KEYS[4]) or '0') ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[3], 'PX', 259200000)
redis.call('SET', KEYS[3], ARGV[4], 'PX', 3456000000)
return 1
`;

/** KEYS bal epoch · ARGV amount. A credit committed in Postgres reaches the loaded balance. */
export const CREDIT = `
redis.call('INCR', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('INCRBY', KEYS[1], ARGV[1]) end
return 1
`;

/**
 * KEYS stream · ARGV group, then quadruples (entry id, account undrained key, key undrained key,
 * charge). After the batch is committed in Postgres: acknowledge each entry, and only the first
 * acknowledgement lowers the undrained counters, so a redelivered entry is never subtracted twice.
 */
export const ACK_DRAINED = `
local n = 0
-- Sums per counter: a batch is mostly a few accounts' calls, one DECRBY each.
local sums, order = {}, {}
local function add(k, c)
  if sums[k] == nil then
    sums[k] = 0
    order[#order + 1] = k
  end
  sums[k] = sums[k] + c
end
for i = 2, #ARGV, 4 do
  if redis.call('XACK', KEYS[1], ARGV[1], ARGV[i]) == 1 then
    n = n + 1
    local c = tonumber(ARGV[i + 3])
    if c > 0 then
      add(ARGV[i + 1], c)
      if ARGV[i + 2] ~= '' then add(ARGV[i + 2], c) end
    end
  end
  redis.call('XDEL', KEYS[1], ARGV[i])
end
for _, k in ipairs(order) do redis.call('DECRBY', k, sums[k]) end
return n
`;
