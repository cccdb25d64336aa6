-- The admission (steps 5 and 6) and the end of a call as functions of one script (runs after
-- rate-state.lua). The API gathers the admissions and finishes its calls ask for within one turn of
-- the event loop and sends them as ONE script call (shared/limits/step-batch.ts): every call still
-- gets its decision in one round trip, and under load many calls share it. Each operation arrives as
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

-- reqCost: the requests taken at each layer (1 for a call; a grant's size for a grant). mult: how
-- many times what is taken must fit (1 for a call; a grant is refused unless the subject has room
-- for several, so that a subject near a limit is decided call by call). slots: the concurrency
-- slots taken at each layer (1 for a call, held by its lease; a grant's, held under its id).
local function admit(i, reqCost, mult, slots, grant)
  local now, id, amount, exp = tonumber(A[i]), A[i + 1], tonumber(A[i + 2]), A[i + 3]
  local balKey, resv = A[i + 4], A[i + 5]
  local j = i + 7
  local q, budget
  if A[i + 6] == '1' then
    q = { A[j], A[j + 1], A[j + 2], A[j + 3], tonumber(A[j + 4]), tonumber(A[j + 5]), tonumber(A[j + 6]) }
    -- The budget counts against its period's counter, with the caps' reserved counter.
    if A[j + 7] ~= '' then budget = { A[j + 7], tonumber(A[j + 8]), A[j + 9] } end
    j = j + 10
  end
  local nr = tonumber(A[j])
  local tokCost, r0 = 0, j + 1
  if nr > 0 then
    tokCost, r0 = tonumber(A[j + 1]), j + 2
    j = r0 + 4 * nr
  else
    j = j + 1
  end
  local nc = tonumber(A[j])
  local c0 = j + 3
  local nextI = j + 1
  if nc > 0 then nextI = c0 + 3 * nc end

  -- Step 6 is evaluated first without writing, so every answer can report where the caller stands
  -- (before: for a refusal, after: for an admitted call); failures are still reported in step
  -- order (5 before 6). When several layers refuse, Retry-After covers the longest wait.
  local bR, bT, aR, aT, news, rateFail
  if nr > 0 then
    news = {}
    for n = 0, nr - 1 do
      local b = r0 + 4 * n
      local rpm, tpm = tonumber(A[b + 2]), tonumber(A[b + 3])
      local tr, tt = readTats(A[b])
      local nR, nT = tr, tt
      for d = 1, 2 do
        local limit, tat, cost, dim = rpm, tr, reqCost, 'requests'
        if d == 2 then limit, tat, cost, dim = tpm, tt, tokCost, 'tokens' end
        if limit then
          local new, rem, reset, remAfter, resetAfter, wait, oversize = gcra(tat, now, limit, cost)
          if mult > 1 and not wait then
            local _, _, _, _, _, roomWait = gcra(tat, now, limit, cost * mult)
            if roomWait then wait, oversize = roomWait, false end
          end
          if d == 1 then
            bR, aR = tighter(bR, limit, rem, reset), tighter(aR, limit, remAfter, resetAfter)
            if new then nR = new end
          else
            bT, aT = tighter(bT, limit, rem, reset), tighter(aT, limit, remAfter, resetAfter)
            if new then nT = new end
          end
          if wait then
            if rateFail == nil then
              rateFail = { fail = 'rate', layer = A[b + 1], dim = dim, limit = limit, retry = wait, oversize = oversize }
            elseif wait > rateFail.retry then
              rateFail.retry = wait
            end
          end
        end
      end
      news[2 * n + 1], news[2 * n + 2] = nR, nT
    end
  end

  -- Step 5: the balance (reservations already taken out), then the quota caps, then the budget.
  local bal = call('GET', balKey)
  if not bal then return 'load_balance', nextI end
  bal = tonumber(bal)
  local purged = false
  local need = amount * mult
  if bal < need then
    bal = purge(balKey, resv, now)
    purged = true
    if bal < need then return encode({ fail = 'balance', balance = bal, hdr = headerTable(bR, bT) }), nextI end
  end
  if q then
    if call('EXISTS', q[1]) == 0 then return 'load_quota', nextI end
    local over, left = overCap(q, need)
    local bLeft = budget and budgetLeft(q, budget)
    if (over or (bLeft and bLeft < need)) and not purged then
      purge(balKey, resv, now)
      over, left = overCap(q, need)
      bLeft = budget and budgetLeft(q, budget)
    end
    if over then return encode({ fail = 'quota', period = PERIODS[over], cap = q[over + 4], left = left, hdr = headerTable(bR, bT) }), nextI end
    if bLeft and bLeft < need then
      return encode({ fail = 'budget', period = budget[3], limit = budget[2], left = bLeft, hdr = headerTable(bR, bT) }), nextI
    end
  end

  -- Step 6: rate limits, then concurrency (leases of dead processes dropped only when they matter).
  if rateFail then
    rateFail.hdr = headerTable(bR, bT)
    return encode(rateFail), nextI
  end
  local wantSlots = slots * mult
  for n = 0, nc - 1 do
    local b = c0 + 3 * n
    local limit = tonumber(A[b + 1])
    if slotsInUse(A[b]) + wantSlots > limit then
      call('ZREMRANGEBYSCORE', A[b], '-inf', now)
      call('ZREMRANGEBYSCORE', A[b] .. ':g', '-inf', now)
      if slotsInUse(A[b]) + wantSlots > limit then
        return encode({ fail = 'concurrency', layer = A[b + 2], limit = limit, hdr = headerTable(bR, bT) }), nextI
      end
    end
  end

  -- Every layer admits: commit all of it.
  if amount > 0 then
    call('DECRBY', balKey, amount)
    local qk = ''
    if q then
      call('INCRBY', q[4], amount)
      qk = q[4]
    end
    call('HSET', resv, id, exp .. ':' .. amount .. ':' .. qk)
  end
  for n = 0, nr - 1 do
    writeTats(A[r0 + 4 * n], news[2 * n + 1], news[2 * n + 2], now)
  end
  if nc > 0 then
    local leaseExp, leaseTtl = A[j + 1], A[j + 2]
    for n = 0, nc - 1 do
      local k = A[c0 + 3 * n]
      if not grant then
        call('ZADD', k, leaseExp, id)
      else
        k = k .. ':g'
        call('ZADD', k, leaseExp, id .. ':' .. slots)
      end
      call('PEXPIRE', k, leaseTtl)
    end
  end
  if aR == nil and aT == nil then return 'ok', nextI end
  -- The common answer with headers is flat text, not JSON: 'ok <requests> <tokens>', each
  -- 'limit,remaining,reset' or '-' (no layer limits that dimension).
  return 'ok ' .. flatHeader(aR) .. ' ' .. flatHeader(aT), nextI
end

local function finish(i)
  local now, id, charge, heldArg, qr = tonumber(A[i]), A[i + 1], tonumber(A[i + 2]), A[i + 3], A[i + 4]
  local asked = charge
  local balKey, resv, und, epoch = A[i + 5], A[i + 6], A[i + 7], A[i + 8]
  local kp, queue, once, rec = A[i + 9], A[i + 13], A[i + 14], A[i + 15]
  local nt = tonumber(A[i + 16])
  local delta, t0, j = 0, i + 17, i + 17
  if nt > 0 then
    delta, t0 = tonumber(A[i + 17]), i + 18
    j = t0 + 2 * nt
  end
  local nc = tonumber(A[j])
  local nextI = j + 1 + nc
  if once ~= '' then
    local done = call('GET', once)
    if done then return done, nextI end
  end

  -- The reservation, if it is still held (it is gone once it expired and went back to the balance).
  -- over: what the charge asks beyond it, taken from the balance below.
  local amt, over = nil, 0
  if heldArg == '' then
    local v = call('HGET', resv, id)
    if v then
      local _
      _, amt, qr = parseHold(v)
      call('HDEL', resv, id)
    end
  elseif heldArg == '0' then
    amt = 0
  elseif string.byte(heldArg) == 103 then
    -- 'g': a call admitted from a grant (id is the grant's): its charge is drawn from the grant's
    -- hold, up to what the call took of it; the rest of the hold stays for the grant's other calls.
    local v = call('HGET', resv, id)
    if v then
      local gexp, gamt, gq = parseHold(v)
      local take = math.min(charge, tonumber(string.sub(heldArg, 2)) or charge, gamt)
      call('HSET', resv, id, gexp .. ':' .. (gamt - take) .. ':' .. gq)
      if gq ~= '' and take > 0 then call('DECRBY', gq, take) end
      over, charge, amt, qr = charge - take, take, take, ''
    end
  elseif call('HDEL', resv, id) == 1 then
    amt = tonumber(heldArg)
  end
  if amt then
    if charge > amt then over, charge = over + charge - amt, amt end
    if qr ~= '' and amt > 0 then call('DECRBY', qr, amt) end
    if amt > charge then call('INCRBY', balKey, amt - charge) end
    if over > 0 then
      local bal = call('GET', balKey)
      if bal then
        local take = math.min(over, math.max(tonumber(bal), 0))
        if take > 0 then call('DECRBY', balKey, take) end
        charge = charge + take
      else
        charge = charge + over
        call('INCR', epoch)
      end
    end
  else
    -- No hold: charge what is there, never below zero.
    local bal = call('GET', balKey)
    if bal then
      bal = tonumber(bal)
      if charge > bal then charge = math.max(bal, 0) end
      if charge > 0 then call('DECRBY', balKey, charge) end
    elseif charge > 0 then
      -- Not loaded: a loader running now must not trust its snapshot.
      call('INCR', epoch)
    end
  end

  if charge > 0 then
    call('INCRBY', und, charge)
    if kp ~= '' then
      local s = kp .. ':spent'
      local t = s .. ':total'
      if call('EXISTS', t) == 1 then
        call('INCRBY', t, charge)
        -- A period's counter gets its expiry when the period's first charge creates it.
        local d = s .. ':d:' .. A[i + 10]
        if call('INCRBY', d, charge) == charge then call('PEXPIRE', d, DAY_TTL) end
        local m = s .. ':m:' .. A[i + 11]
        if call('INCRBY', m, charge) == charge then call('PEXPIRE', m, MONTH_TTL) end
        local w = s .. ':w:' .. A[i + 12]
        if call('INCRBY', w, charge) == charge then call('PEXPIRE', w, WEEK_TTL) end
      else
        call('INCR', kp .. ':epoch')
      end
      call('INCRBY', kp .. ':undrained', charge)
    end
  end
  -- TPM was reserved from an estimate: move each layer's tokens TAT by the difference.
  if delta ~= 0 then
    for n = 0, nt - 1 do
      local b = t0 + 2 * n
      local tr, tt = readTats(A[b])
      if tt > 0 then writeTats(A[b], tr, tt + delta * 60000 / tonumber(A[b + 1]), now) end
    end
  end
  for n = j + 1, j + nc do call('ZREM', A[n], id) end
  -- The record (JSON ending with the charge asked) is queued for the drain (shared/usage/drain.ts);
  -- its charge is rewritten only when less could be charged.
  if rec ~= '' then
    if charge ~= asked then rec = string.match(rec, '^(.*,"charged_micro_usd":)%-?%d+}$') .. charge .. '}' end
    call('RPUSH', queue, rec)
  end
  if once ~= '' then call('SET', once, charge, 'PX', 604800000) end
  return tostring(charge), nextI
end

-- A grant given back: each layer's TATs move back by its unused requests and tokens, and its
-- concurrency slots are freed. R now n [k rpm tpm requests tokens]… m [slot set, member]…
local function giveBack(i)
  local now, n = tonumber(A[i]), tonumber(A[i + 1])
  for l = 0, n - 1 do
    local b = i + 2 + 5 * l
    local rpm, tpm, rq, tk = tonumber(A[b + 1]), tonumber(A[b + 2]), tonumber(A[b + 3]), tonumber(A[b + 4])
    local tr, tt = readTats(A[b])
    if rpm and rpm > 0 and rq > 0 then tr = tr - rq * 60000 / rpm end
    if tpm and tpm > 0 and tk > 0 then tt = tt - tk * 60000 / tpm end
    writeTats(A[b], tr, tt, now)
  end
  local j = i + 2 + 5 * n
  local m = tonumber(A[j])
  for l = 0, m - 1 do call('ZREM', A[j + 1 + 2 * l], A[j + 2 + 2 * l]) end
  return 'ok', j + 1 + 2 * m
end

local out = {}
local i = 1
while i <= #A do
  local op, ok, reply, nextI = A[i]
  if op == 'A' then
    ok, reply, nextI = pcall(admit, i + 1, 1, 1, 1, false)
  elseif op == 'G' then
    ok, reply, nextI = pcall(admit, i + 4, tonumber(A[i + 1]), tonumber(A[i + 3]), tonumber(A[i + 2]), true)
  elseif op == 'R' then
    ok, reply, nextI = pcall(giveBack, i + 1)
  else
    ok, reply, nextI = pcall(finish, i + 1)
  end
  if ok then
    out[#out + 1] = reply
    i = nextI
  else
    -- The fields of a broken operation cannot say where the next one starts: the rest fail too.
    out[#out + 1] = 'ERR ' .. (type(reply) == 'table' and tostring(reply.err) or tostring(reply))
    break
  end
end
return out
