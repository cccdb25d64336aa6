/**
 * The gateway's Lua: steps 5 and 6 of the pipeline and the end of a call (STEP), the rate-limit
 * view (PEEK), lease renewal (RENEW) and the generic limiter (CONSUME).
 *
 * Per account: `bal` (spendable micro-USD; reservations already taken out), `resv` (call id →
 * expiry), `resvamt` (call id → amount), `resvq` (call id → the key's reserved counter it holds).
 * Per key: `t`, `d:<yyyymmdd>`, `m:<yyyymm>` (spent, loaded from Postgres on first use), `r`
 * (reserved in flight), `und` (charged but not yet in Postgres), `epoch`.
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
 * ARGV: any number of operations, each `A` (admit) or `F` (finish) followed by its fields in the
 * order `decodeAdmit` / `decodeFinish` read them (the encoders are in shared/limits/admission.ts).
 * An admission answers JSON `{ok, hdr?}` or `{fail, ...}`; a finish answers the micro-USD charged.
 */
export const STEP = `${GCRA_PEEK}
local function decodeAdmit(A, i)
  local p = { now = tonumber(A[i]), id = A[i + 1], amount = tonumber(A[i + 2]), exp = A[i + 3], lexp = A[i + 4], lttl = A[i + 5],
    bal = A[i + 6], resv = A[i + 7], ramt = A[i + 8], rq = A[i + 9], rates = {}, conc = {} }
  i = i + 10
  if A[i] == '1' then
    p.q = { t = A[i + 1], d = A[i + 2], m = A[i + 3], r = A[i + 4],
      caps = { total = tonumber(A[i + 5]), daily = tonumber(A[i + 6]), monthly = tonumber(A[i + 7]) } }
    i = i + 8
  else
    i = i + 1
  end
  local n = tonumber(A[i])
  i = i + 1
  for j = 1, n do
    p.rates[j] = { k = A[i], limit = tonumber(A[i + 1]), cost = tonumber(A[i + 2]), dim = A[i + 3], layer = A[i + 4] }
    i = i + 5
  end
  n = tonumber(A[i])
  i = i + 1
  for j = 1, n do
    p.conc[j] = { k = A[i], limit = tonumber(A[i + 1]), layer = A[i + 2] }
    i = i + 3
  end
  return p, i
end

local function decodeFinish(A, i)
  local p = { now = tonumber(A[i]), id = A[i + 1], charge = tonumber(A[i + 2]), bal = A[i + 3], resv = A[i + 4], ramt = A[i + 5],
    rq = A[i + 6], und = A[i + 7], epoch = A[i + 8],
    q = { t = A[i + 9], d = A[i + 10], m = A[i + 11], und = A[i + 12], epoch = A[i + 13] },
    capped = A[i + 14] == '1', stream = A[i + 15], tpm = {}, conc = {} }
  if A[i + 16] ~= '' then p.once = A[i + 16] end
  if A[i + 17] ~= '' then p.rec = A[i + 17] end
  i = i + 18
  local n = tonumber(A[i])
  i = i + 1
  for j = 1, n do
    p.tpm[j] = { k = A[i], limit = tonumber(A[i + 1]), delta = tonumber(A[i + 2]) }
    i = i + 3
  end
  n = tonumber(A[i])
  i = i + 1
  for j = 1, n do
    p.conc[j] = A[i]
    i = i + 1
  end
  return p, i
end

local function admit(p)
  local now = p.now

  -- Step 6 is evaluated first without writing, so every answer can report where the caller stands
  -- (\`before\` for a refusal, \`after\` for an admitted call); failures are still reported in step
  -- order (5 before 6). When several layers refuse, Retry-After covers the longest wait.
  local news, rateFail, before, after = {}, nil, {}, {}
  local function keep(tbl, dim, h)
    local cur = tbl[dim]
    if cur == nil or h.remaining < cur.remaining then tbl[dim] = h end
  end
  for i, r in ipairs(p.rates) do
    if r.limit <= 0 then
      -- A zero limit admits nothing (and GCRA would divide by zero).
      local h = { limit = 0, remaining = 0, reset = 60 }
      keep(before, r.dim, h)
      keep(after, r.dim, h)
      news[i] = false
      if rateFail == nil then rateFail = { fail = 'rate', layer = r.layer, dim = r.dim, limit = 0, retry = 60, oversize = true } end
    else
      local tat, new, T = gcra(r, now)
      local function view(used)
        local remaining = math.floor((60000 - (used - now)) / T)
        if remaining < 0 then remaining = 0 end
        return { limit = r.limit, remaining = remaining, reset = math.ceil((used - now) / 1000) }
      end
      news[i] = new
      keep(before, r.dim, view(tat))
      if new - now <= 60000 then
        keep(after, r.dim, view(new))
      else
        keep(after, r.dim, view(tat))
        local wait = math.ceil((new - 60000 - now) / 1000)
        if wait < 1 then wait = 1 end
        if r.cost > r.limit then wait = 60 end
        if rateFail == nil then
          rateFail = { fail = 'rate', layer = r.layer, dim = r.dim, limit = r.limit, retry = wait, oversize = r.cost > r.limit }
        elseif wait > rateFail.retry then
          rateFail.retry = wait
        end
      end
    end
  end
  local hdr = before

  -- Step 5: balance (after returning the reservations of processes that died), then quota caps.
  local bal = redis.call('GET', p.bal)
  if not bal then return cjson.encode({ fail = 'load_balance' }) end
  bal = tonumber(bal)
  -- The reservations of processes that died are taken back only when they would make the difference
  -- (money or a quota short), not on every call.
  local purged = false
  local function purge()
    if purged then return end
    purged = true
    local expired = redis.call('ZRANGEBYSCORE', p.resv, '-inf', now, 'LIMIT', 0, 1000)
    for _, id in ipairs(expired) do
      local amt = redis.call('HGET', p.ramt, id)
      if amt then
        redis.call('INCRBY', p.bal, amt)
        local qr = redis.call('HGET', p.rq, id)
        if qr then redis.call('DECRBY', qr, amt) end
      end
      redis.call('HDEL', p.ramt, id)
      redis.call('HDEL', p.rq, id)
      redis.call('ZREM', p.resv, id)
    end
    bal = tonumber(redis.call('GET', p.bal))
  end
  if bal < p.amount then purge() end
  if bal < p.amount then return cjson.encode({ fail = 'balance', balance = bal, hdr = hdr }) end
  if p.q then
    if redis.call('EXISTS', p.q.t) == 0 then return cjson.encode({ fail = 'load_quota' }) end
    local function overCap()
      local reserved = tonumber(redis.call('GET', p.q.r) or '0')
      for _, c in ipairs({ { 'total', p.q.t }, { 'daily', p.q.d }, { 'monthly', p.q.m } }) do
        local cap = p.q.caps[c[1]]
        if cap then
          local used = tonumber(redis.call('GET', c[2]) or '0')
          if used + reserved + p.amount > cap then return { fail = 'quota', period = c[1], used = used, cap = cap, hdr = hdr } end
        end
      end
      return nil
    end
    local over = overCap()
    if over and not purged then
      purge()
      over = overCap()
    end
    if over then return cjson.encode(over) end
  end

  -- Step 6: rate limits, then concurrency.
  if rateFail then rateFail.hdr = hdr return cjson.encode(rateFail) end
  for _, c in ipairs(p.conc) do
    -- Leases of processes that died are dropped only when they would make the difference.
    if redis.call('ZCARD', c.k) >= c.limit then
      redis.call('ZREMRANGEBYSCORE', c.k, '-inf', now)
      if redis.call('ZCARD', c.k) >= c.limit then
        return cjson.encode({ fail = 'concurrency', layer = c.layer, limit = c.limit, hdr = hdr })
      end
    end
  end

  -- Every layer admits: commit all of it.
  if p.amount > 0 then
    redis.call('DECRBY', p.bal, p.amount)
    redis.call('ZADD', p.resv, p.exp, p.id)
    redis.call('HSET', p.ramt, p.id, p.amount)
    if p.q then
      redis.call('INCRBY', p.q.r, p.amount)
      redis.call('HSET', p.rq, p.id, p.q.r)
    end
  end
  for i, r in ipairs(p.rates) do
    if news[i] then redis.call('SET', r.k, string.format('%.3f', news[i]), 'PX', math.ceil(news[i] - now) + 1000) end
  end
  for _, c in ipairs(p.conc) do
    redis.call('ZADD', c.k, p.lexp, p.id)
    redis.call('PEXPIRE', c.k, p.lttl)
  end
  if next(after) == nil then return '{"ok":1}' end
  return cjson.encode({ ok = 1, hdr = after })
end

local function finish(p)
  local now = p.now
  if p.once then
    local done = redis.call('GET', p.once)
    if done then return tonumber(done) end
  end
  local loaded = redis.call('EXISTS', p.bal) == 1
  local amt = redis.call('HGET', p.ramt, p.id)
  local charge = p.charge
  if amt then
    amt = tonumber(amt)
    if charge > amt then charge = amt end
    if p.capped then
      local qr = redis.call('HGET', p.rq, p.id)
      if qr then redis.call('DECRBY', qr, amt) end
      redis.call('HDEL', p.rq, p.id)
    end
    redis.call('HDEL', p.ramt, p.id)
    redis.call('ZREM', p.resv, p.id)
    if loaded then redis.call('INCRBY', p.bal, amt - charge) end
  elseif loaded then
    -- The reservation already expired and its money went back: charge what is there, never below zero.
    local bal = tonumber(redis.call('GET', p.bal))
    if charge > bal then charge = math.max(bal, 0) end
    redis.call('DECRBY', p.bal, charge)
  end
  if charge > 0 then
    if not loaded then redis.call('INCR', p.epoch) end
    redis.call('INCRBY', p.und, charge)
    if redis.call('EXISTS', p.q.t) == 1 then
      redis.call('INCRBY', p.q.t, charge)
      redis.call('INCRBY', p.q.d, charge)
      redis.call('PEXPIRE', p.q.d, 259200000)
      redis.call('INCRBY', p.q.m, charge)
      redis.call('PEXPIRE', p.q.m, 3456000000)
    else
      redis.call('INCR', p.q.epoch)
    end
    redis.call('INCRBY', p.q.und, charge)
  end
  for _, t in ipairs(p.tpm) do
    local tat = redis.call('GET', t.k)
    if tat and t.delta ~= 0 then
      local new = tonumber(tat) + t.delta * 60000 / t.limit
      if new > now then
        redis.call('SET', t.k, string.format('%.3f', new), 'PX', math.ceil(new - now) + 1000)
      else
        redis.call('DEL', t.k)
      end
    end
  end
  for _, k in ipairs(p.conc) do redis.call('ZREM', k, p.id) end
  -- The counters the drain lowers once the record is in Postgres travel with it.
  if p.rec then redis.call('XADD', p.stream, '*', 'r', p.rec, 'c', charge, 'u', p.und, 'k', p.q.und) end
  if p.once then redis.call('SET', p.once, charge, 'PX', 604800000) end
  return charge
end

local out = {}
local i = 1
while i <= #ARGV do
  local kind = ARGV[i]
  local p
  if kind == 'A' then p, i = decodeAdmit(ARGV, i + 1) else p, i = decodeFinish(ARGV, i + 1) end
  local ok, reply = pcall(kind == 'A' and admit or finish, p)
  if ok then
    out[#out + 1] = tostring(reply)
  else
    out[#out + 1] = 'ERR ' .. (type(reply) == 'table' and tostring(reply.err) or tostring(reply))
  end
end
return out
`;

/** ARGV: now, lease expiry, reservation expiry, then pairs (call id, JSON list of lease keys + resv key). */
export const RENEW = `
local n = 0
for i = 4, #ARGV, 2 do
  local keys = cjson.decode(ARGV[i + 1])
  redis.call('ZADD', keys.resv, 'XX', ARGV[3], ARGV[i])
  for _, k in ipairs(keys.conc) do
    if redis.call('ZADD', k, 'XX', 'CH', ARGV[2], ARGV[i]) == 1 then n = n + 1 end
    -- The set's own TTL (set at admission) must follow its leases, or a long call loses its slot.
    redis.call('PEXPIRE', k, ARGV[2] - ARGV[1])
  end
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
