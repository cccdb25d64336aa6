-- STEP, part 1 of 4: the admission (steps 5 and 6) and the end of a call as functions of one
-- script, sent as rate-state.lua, this file, step-admit.lua, step-finish.lua and step.lua in that
-- order (shared/limits/scripts.ts); this part holds its arguments' layout and the shared helpers.
--
-- The API gathers the admissions and finishes its calls ask for within one turn of the event loop
-- and sends them as ONE script call (shared/limits/step-batch.ts): every call still gets its
-- decision in one round trip, and under load many calls share it. Each operation arrives as
-- flat arguments (no JSON to build or decode) and answers in its own slot of the reply; an operation
-- that fails answers 'ERR <message>' without failing the others.
--
-- This script runs on every call, so it is written for Redis's CPU: arguments are read in place
-- (no table per operation), a call with no limits and no caps takes three commands to be admitted
-- (GET, DECRBY, HSET) and about seven to end, a layer's RPM and TPM share one key (one GET and
-- one SET per layer), and tables are built only for rate-limit headers. A rate limit of '' is not set.
--
-- ARGV: any number of operations, each A (admit), G (take a grant), F (finish) or R (give a grant
-- back) followed by its fields:
--   A now id amount resvExpiry bal resv capped [t d m r capTotal capDaily capMonthly budgetKey budgetLimit budgetPeriod]
--     nRateLayers [tokensCost [k layer rpm tpm]…] nConc [leaseExpiry leaseTtl [k limit layer]…]
--     → 'ok' | 'ok <requests> <tokens>' (rate-limit headers) | 'load_balance' | 'load_quota' | JSON {fail, …}
--   G requests slots mult <the fields of A>: a grant (shared/limits/grants.ts) — `requests` at every
--     rate layer and `slots` at every concurrency layer instead of 1 (the slots held in
--     '<layer key>:g' under '<id>:<slots>'), refused unless `mult` times all of it fits
--   F now id charge held quotaReserved bal resv undrained epoch keyPrefix day month week queue once record
--     nTpm [delta [k tpm]…] nConc [k]…
--     → the micro-USD charged; `held` = 'g<reserved>': a grant's call, charged from the grant's hold
--     `id` up to what the call took from it
--   R now n [k rpm tpm requests tokens]… m [slotSet member]… → 'ok'
-- `held` is the amount the admission reserved ('' = look it up in `resv`: a task settling later);
-- a charge above it (an upstream that delivered more than was reserved) is drawn from the balance,
-- as far as it goes.
-- `keyPrefix` names the key's spend counters (see keySpendNames in shared/redis/keys.ts; '' = no
-- key). The encoders are in shared/limits/admit-fields.ts and settlement.ts; the data model is described in
-- shared/limits/scripts.ts.
local A = ARGV
local call, tonumber, tostring, encode = redis.call, tonumber, tostring, cjson.encode
local DAY_TTL, WEEK_TTL, MONTH_TTL = 259200000, 864000000, 3456000000

-- A reservation is "<expiry ms>:<amount>:<quota reserved key or empty>" under the call id.
local function parseHold(v)
  local exp, amt, qk = string.match(v, '^(%d+):(%d+):(.*)$')
  return tonumber(exp), tonumber(amt), qk
end

-- Gives back the reservations of calls whose process died (expired holds); returns the balance.
-- Run only when money or a quota is short, never on the common path.
local function purge(bal, resv, now)
  local all = call('HGETALL', resv)
  local back = 0
  for j = 1, #all, 2 do
    local exp, amt, qk = parseHold(all[j + 1])
    if exp and exp < now then
      back = back + amt
      if qk ~= '' then call('DECRBY', qk, amt) end
      call('HDEL', resv, all[j])
    end
  end
  if back > 0 then return call('INCRBY', bal, back) end
  return tonumber(call('GET', bal))
end

local function flatHeader(h)
  if h == nil then return '-' end
  return string.format('%d,%d,%d', h[1], h[2], h[3])
end

-- q = { total key, day key, month key, reserved key, total cap, daily cap, monthly cap }
local PERIODS = { 'total', 'daily', 'monthly' }
-- The first cap the amount would pass, and what is left under the tightest cap.
local function overCap(q, amount)
  local reserved = tonumber(call('GET', q[4]) or '0')
  local over, left = nil, nil
  for c = 1, 3 do
    local cap = q[c + 4]
    if cap then
      local room = cap - tonumber(call('GET', q[c]) or '0') - reserved
      if left == nil or room < left then left = room end
      if over == nil and room < amount then over = c end
    end
  end
  return over, left
end

-- What is left under the key's budget: its period's spend (b[1], limit b[2]) less every call in flight.
local function budgetLeft(q, b)
  return b[2] - tonumber(call('GET', b[1]) or '0') - tonumber(call('GET', q[4]) or '0')
end

-- Concurrency slots in use at a layer: the calls' leases (a sorted set of call id → expiry) and the
-- slots held by grants (a sorted set '<layer key>:g' of '<grant id>:<slots>' → expiry).
local function slotsInUse(k)
  local used = call('ZCARD', k)
  local g = k .. ':g'
  if call('EXISTS', g) == 1 then
    for _, m in ipairs(call('ZRANGE', g, 0, -1)) do
      used = used + tonumber(string.match(m, ':(%d+)$'))
    end
  end
  return used
end
