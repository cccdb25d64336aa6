/**
 * Lua run inside Redis so each money decision is atomic and costs one round trip. Per-account
 * state: `bal` (spendable micro-USD, reservations already taken out), `resv` (reservation id →
 * expiry, to return the money of a process that died) with `resvamt` (id → amount), `undrained`
 * (charges queued for Postgres but not yet applied there) and `epoch` (bumped by anything that moves
 * money while `bal` is not loaded, so a concurrent loader knows its snapshot is stale).
 */

/** KEYS bal resv resvamt · ARGV now_ms id amount expires_ms → {1, bal} | {-1} not loaded | {-2, bal} short */
export const RESERVE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 100)
for _, id in ipairs(expired) do
  local amt = redis.call('HGET', KEYS[3], id)
  if amt then redis.call('INCRBY', KEYS[1], amt); redis.call('HDEL', KEYS[3], id) end
  redis.call('ZREM', KEYS[2], id)
end
local bal = tonumber(redis.call('GET', KEYS[1]))
local amount = tonumber(ARGV[3])
if bal < amount then return {-2, bal} end
if amount > 0 then
  redis.call('DECRBY', KEYS[1], amount)
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
  redis.call('HSET', KEYS[3], ARGV[2], amount)
end
return {1, bal - amount}
`;

/**
 * KEYS bal resv resvamt undrained epoch stream · ARGV id cost record → charged
 * Releases the reservation, charges at most what was reserved (the reservation is an upper bound),
 * and queues the usage record with its charge in the same step, so a record is never charged twice
 * and never lost once the response is complete.
 */
export const SETTLE = `
local cost = tonumber(ARGV[2])
local loaded = redis.call('EXISTS', KEYS[1]) == 1
local amt = redis.call('HGET', KEYS[3], ARGV[1])
local charge = cost
if amt then
  amt = tonumber(amt)
  if charge > amt then charge = amt end
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  if loaded then redis.call('INCRBY', KEYS[1], amt - charge) end
elseif loaded then
  -- The reservation already expired and its money went back: charge what is there, never below zero.
  local bal = tonumber(redis.call('GET', KEYS[1]))
  if charge > bal then charge = math.max(bal, 0) end
  redis.call('DECRBY', KEYS[1], charge)
end
if not loaded then redis.call('INCR', KEYS[5]) end
if charge > 0 then redis.call('INCRBY', KEYS[4], charge) end
redis.call('XADD', KEYS[6], '*', 'r', ARGV[3], 'c', charge)
return charge
`;

/** KEYS bal resv resvamt · ARGV id → released amount. For calls that never reached settlement's charge. */
export const RELEASE = `
local amt = redis.call('HGET', KEYS[3], ARGV[1])
if not amt then return 0 end
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('INCRBY', KEYS[1], amt) end
return tonumber(amt)
`;

/** KEYS bal epoch · ARGV epoch_seen value → 1 set | 0 already loaded | -1 stale snapshot, load again */
export const LOAD_BALANCE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;

/** KEYS bal epoch · ARGV amount. A credit committed in Postgres reaches the loaded balance. */
export const CREDIT = `
redis.call('INCR', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('INCRBY', KEYS[1], ARGV[1]) end
return 1
`;

/**
 * KEYS stream · ARGV group, then triples (entry id, undrained key, charge). After the batch is
 * committed in Postgres: acknowledge each entry, and only the first acknowledgement lowers
 * `undrained`, so a redelivered entry is never subtracted twice.
 */
export const ACK_DRAINED = `
local n = 0
for i = 2, #ARGV, 3 do
  if redis.call('XACK', KEYS[1], ARGV[1], ARGV[i]) == 1 then
    n = n + 1
    local c = tonumber(ARGV[i + 2])
    if c > 0 then redis.call('DECRBY', ARGV[i + 1], c) end
  end
end
return n
`;
