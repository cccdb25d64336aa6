/**
 * The gateway's Lua: steps 5 and 6 of the pipeline and the end of a call (STEP), the rate-limit
 * view (PEEK), lease renewal (RENEW) and the generic limiter (CONSUME).
 *
 * Per account: `bal` (spendable micro-USD; reservations already taken out) and `resv` (call id →
 * `<expiry ms>:<amount>:<the key's reserved counter, if it holds one>`), `undrained`, `epoch`.
 * Per key (`<key prefix>:…`): `spent`, `spent:d:<yyyymmdd>`, `spent:m:<yyyymm>` (loaded from
 * Postgres on first use), `reserved` (in flight), `undrained` (charged but not yet in Postgres), `epoch`.
 * Rate limits are GCRA over a 60-second window: a key holds the theoretical arrival time (ms); a
 * request of cost c moves it by c × 60000 / limit and is admitted while it stays within 60 s of now.
 * Concurrency: a sorted set of call id → lease expiry per layer.
 */

const GCRA_PEEK = `
local function gcra(r, now)
  local T = 60000 / r.limit
  local tat = tonumber(redis.call('GET', r.k) or '0')
  if tat < now then tat = now end
  local new = tat + r.cost * T
  return tat, new, T
end
`;

/** ARGV[1] = JSON {now, rates} → JSON headers of the tightest layer per dimension; writes nothing. */
export const PEEK = `${GCRA_PEEK}
local p = cjson.decode(ARGV[1])
local hdr = {}
for _, r in ipairs(p.rates) do
  local h
  if r.limit <= 0 then
    h = { limit = 0, remaining = 0, reset = 60 }
  else
    local tat, _, T = gcra(r, p.now)
    local remaining = math.floor((60000 - (tat - p.now)) / T)
    if remaining < 0 then remaining = 0 end
    h = { limit = r.limit, remaining = remaining, reset = math.ceil((tat - p.now) / 1000) }
  end
  local cur = hdr[r.dim]
  if cur == nil or h.remaining < cur.remaining then hdr[r.dim] = h end
end
return cjson.encode(hdr)
`;

/**
 * The admission (steps 5 and 6) and the end of a call as functions of one script. The API gathers
 * the admissions and finishes its calls ask for within one turn of the event loop and sends them as
 * ONE script call (shared/limits/step-batch.ts): every call still gets its decision in one round
 * trip, and under load many calls share it. Each operation arrives as flat arguments (no JSON to
 * build or decode) and answers in its own slot of the reply; an operation that fails answers
 * `ERR <message>` without failing the others.
 *
 * This script runs on every call, so it is written for Redis's CPU: arguments are read in place
 * (no table per operation), a call with no limits and no caps takes three commands to be admitted
 * (GET, DECRBY, HSET) and about seven to end, and tables are built only for rate-limit headers.
 *
 * ARGV: any number of operations, each `A` (admit) or `F` (finish) followed by its fields:
 *   A now id amount resvExpiry bal resv capped [t d m r capTotal capDaily capMonthly]
 *     nRates [k limit cost dim layer]… nConc [leaseExpiry leaseTtl [k limit layer]…]
 *     → 'ok' | 'ok <requests> <tokens>' (rate-limit headers) | 'load_balance' | 'load_quota' | JSON {fail, …}
 *   F now id charge held quotaReserved bal resv undrained epoch keyPrefix day month queue once record
 *     nTpm [k limit delta]… nConc [k]…
 *     → the micro-USD charged
 * `held` is the amount the admission reserved ('' = look it up in `resv`: a task settling later);
 * `keyPrefix` names the key's spend counters (see `keySpendNames` in shared/redis/keys.ts; '' = no
 * key). The encoders are in shared/limits/admission.ts.
 */
export const STEP = `
local A = ARGV
local call, tonumber, tostring, encode = redis.call, tonumber, tostring, cjson.encode
local DAY_TTL, MONTH_TTL = 259200000, 3456000000

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

-- The tightest layer per dimension (smallest remaining).
local function keep(tbl, dim, limit, remaining, reset)
  local cur = tbl[dim]
  if cur == nil or remaining < cur.remaining then tbl[dim] = { limit = limit, remaining = remaining, reset = reset } end
end

local function flatHeader(h)
  if h == nil then return '-' end
  return string.format('%d,%d,%d', h.limit, h.remaining, h.reset)
end

-- q = { total key, day key, month key, reserved key, total cap, daily cap, monthly cap }
local PERIODS = { 'total', 'daily', 'monthly' }
local function overCap(q, amount)
  local reserved = tonumber(call('GET', q[4]) or '0')
  for c = 1, 3 do
    local cap = q[c + 4]
    if cap then
      local used = tonumber(call('GET', q[c]) or '0')
      if used + reserved + amount > cap then return c end
    end
  end
  return nil
end

local function admit(i)
  local now, id, amount, exp = tonumber(A[i]), A[i + 1], tonumber(A[i + 2]), A[i + 3]
  local balKey, resv = A[i + 4], A[i + 5]
  local j = i + 7
  local q
  if A[i + 6] == '1' then
    q = { A[j], A[j + 1], A[j + 2], A[j + 3], tonumber(A[j + 4]), tonumber(A[j + 5]), tonumber(A[j + 6]) }
    j = j + 7
  end
  local nr = tonumber(A[j])
  local r0 = j + 1
  j = r0 + 5 * nr
  local nc = tonumber(A[j])
  local c0 = j + 3
  local nextI = j + 1
  if nc > 0 then nextI = c0 + 3 * nc end

  -- Step 6 is evaluated first without writing, so every answer can report where the caller stands
  -- (before: for a refusal, after: for an admitted call); failures are still reported in step
  -- order (5 before 6). When several layers refuse, Retry-After covers the longest wait.
  local before, after, news, rateFail
  if nr > 0 then
    before, after, news = {}, {}, {}
    for n = 0, nr - 1 do
      local b = r0 + 5 * n
      local limit, cost, dim = tonumber(A[b + 1]), tonumber(A[b + 2]), A[b + 3]
      if limit <= 0 then
        -- A zero limit admits nothing (and GCRA would divide by zero).
        keep(before, dim, 0, 0, 60)
        keep(after, dim, 0, 0, 60)
        news[n] = false
        if rateFail == nil then rateFail = { fail = 'rate', layer = A[b + 4], dim = dim, limit = 0, retry = 60, oversize = true } end
      else
        -- GCRA: the key holds the theoretical arrival time; a call of cost c moves it c × 60000 / limit.
        local T = 60000 / limit
        local tat = tonumber(call('GET', A[b]) or '0')
        if tat < now then tat = now end
        local new = tat + cost * T
        news[n] = new
        local rem = math.floor((60000 - (tat - now)) / T)
        keep(before, dim, limit, rem < 0 and 0 or rem, math.ceil((tat - now) / 1000))
        if new - now <= 60000 then
          rem = math.floor((60000 - (new - now)) / T)
          keep(after, dim, limit, rem < 0 and 0 or rem, math.ceil((new - now) / 1000))
        else
          keep(after, dim, limit, rem < 0 and 0 or rem, math.ceil((tat - now) / 1000))
          local wait = math.ceil((new - 60000 - now) / 1000)
          if wait < 1 then wait = 1 end
          if cost > limit then wait = 60 end
          if rateFail == nil then
            rateFail = { fail = 'rate', layer = A[b + 4], dim = dim, limit = limit, retry = wait, oversize = cost > limit }
          elseif wait > rateFail.retry then
            rateFail.retry = wait
          end
        end
      end
    end
  end

  -- Step 5: the balance (reservations already taken out), then the quota caps.
  local bal = call('GET', balKey)
  if not bal then return 'load_balance', nextI end
  bal = tonumber(bal)
  local purged = false
  if bal < amount then
    bal = purge(balKey, resv, now)
    purged = true
    if bal < amount then return encode({ fail = 'balance', balance = bal, hdr = before }), nextI end
  end
  if q then
    if call('EXISTS', q[1]) == 0 then return 'load_quota', nextI end
    local over = overCap(q, amount)
    if over and not purged then
      purge(balKey, resv, now)
      over = overCap(q, amount)
    end
    if over then return encode({ fail = 'quota', period = PERIODS[over], cap = q[over + 4], hdr = before }), nextI end
  end

  -- Step 6: rate limits, then concurrency (leases of dead processes dropped only when they matter).
  if rateFail then
    rateFail.hdr = before
    return encode(rateFail), nextI
  end
  for n = 0, nc - 1 do
    local b = c0 + 3 * n
    local limit = tonumber(A[b + 1])
    if call('ZCARD', A[b]) >= limit then
      call('ZREMRANGEBYSCORE', A[b], '-inf', now)
      if call('ZCARD', A[b]) >= limit then
        return encode({ fail = 'concurrency', layer = A[b + 2], limit = limit, hdr = before }), nextI
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
    local new = news[n]
    if new then call('SET', A[r0 + 5 * n], string.format('%.3f', new), 'PX', math.ceil(new - now) + 1000) end
  end
  if nc > 0 then
    local leaseExp, leaseTtl = A[j + 1], A[j + 2]
    for n = 0, nc - 1 do
      local k = A[c0 + 3 * n]
      call('ZADD', k, leaseExp, id)
      call('PEXPIRE', k, leaseTtl)
    end
  end
  if after == nil or next(after) == nil then return 'ok', nextI end
  -- The common answer with headers is flat text, not JSON: 'ok <requests> <tokens>', each
  -- 'limit,remaining,reset' or '-' (no layer limits that dimension).
  return 'ok ' .. flatHeader(after.requests) .. ' ' .. flatHeader(after.tokens), nextI
end

local function finish(i)
  local now, id, charge, heldArg, qr = tonumber(A[i]), A[i + 1], tonumber(A[i + 2]), A[i + 3], A[i + 4]
  local asked = charge
  local balKey, resv, und, epoch = A[i + 5], A[i + 6], A[i + 7], A[i + 8]
  local kp, queue, once, rec = A[i + 9], A[i + 12], A[i + 13], A[i + 14]
  local nt = tonumber(A[i + 15])
  local t0 = i + 16
  local j = t0 + 3 * nt
  local nc = tonumber(A[j])
  local nextI = j + 1 + nc
  if once ~= '' then
    local done = call('GET', once)
    if done then return done, nextI end
  end

  -- The reservation, if it is still held (it is gone once it expired and went back to the balance).
  local amt
  if heldArg == '' then
    local v = call('HGET', resv, id)
    if v then
      local _
      _, amt, qr = parseHold(v)
      call('HDEL', resv, id)
    end
  elseif heldArg == '0' then
    amt = 0
  elseif call('HDEL', resv, id) == 1 then
    amt = tonumber(heldArg)
  end
  if amt then
    if charge > amt then charge = amt end
    if qr ~= '' and amt > 0 then call('DECRBY', qr, amt) end
    if amt > charge then call('INCRBY', balKey, amt - charge) end
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
      local t = kp .. ':spent'
      if call('EXISTS', t) == 1 then
        call('INCRBY', t, charge)
        -- A period's counter gets its expiry when the period's first charge creates it.
        local d = t .. ':d:' .. A[i + 10]
        if call('INCRBY', d, charge) == charge then call('PEXPIRE', d, DAY_TTL) end
        local m = t .. ':m:' .. A[i + 11]
        if call('INCRBY', m, charge) == charge then call('PEXPIRE', m, MONTH_TTL) end
      else
        call('INCR', kp .. ':epoch')
      end
      call('INCRBY', kp .. ':undrained', charge)
    end
  end
  -- TPM was reserved from an estimate: move each layer's state by the difference.
  for n = 0, nt - 1 do
    local b = t0 + 3 * n
    local delta = tonumber(A[b + 2])
    if delta ~= 0 then
      local tat = call('GET', A[b])
      if tat then
        local new = tonumber(tat) + delta * 60000 / tonumber(A[b + 1])
        if new > now then
          call('SET', A[b], string.format('%.3f', new), 'PX', math.ceil(new - now) + 1000)
        else
          call('DEL', A[b])
        end
      end
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

local out = {}
local i = 1
while i <= #A do
  local ok, reply, nextI = pcall(A[i] == 'A' and admit or finish, i + 1)
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
`;

/**
 * Keeps in-flight calls' holds alive. ARGV: now, lease expiry, reservation expiry, then per call:
 * id, resv key, number of lease keys, the lease keys.
 */
export const RENEW = `
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
`;

/**
 * Generic limits (per source IP, per key, code-sending cooldowns): ARGV[1] = JSON {now, rules:
 * [{k, limit, windowMs}]} → {ok} or {fail, index, retry}. All rules admit or none is consumed.
 */
export const CONSUME = `
local p = cjson.decode(ARGV[1])
local news = {}
for i, r in ipairs(p.rules) do
  local T = r.windowMs / r.limit
  local tat = tonumber(redis.call('GET', r.k) or '0')
  if tat < p.now then tat = p.now end
  local new = tat + T
  if new - p.now > r.windowMs then
    local wait = math.ceil((new - r.windowMs - p.now) / 1000)
    if wait < 1 then wait = 1 end
    return cjson.encode({ fail = 1, index = i, retry = wait, remaining = 0, reset = math.ceil((tat - p.now) / 1000) })
  end
  news[i] = new
end
for i, r in ipairs(p.rules) do
  redis.call('SET', r.k, string.format('%.3f', news[i]), 'PX', math.ceil(news[i] - p.now) + 1000)
end
return cjson.encode({ ok = 1 })
`;
