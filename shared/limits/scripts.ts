/**
 * The gateway's Lua: the rate-limit view (PEEK), lease renewal (RENEW) and the generic limiter
 * (CONSUME); steps 5 and 6 of the pipeline and the end of a call (STEP) are in step-script.ts.
 *
 * Per account: `bal` (spendable micro-USD; reservations already taken out) and `resv` (call id →
 * `<expiry ms>:<amount>:<the key's reserved counter, if it holds one>`), `undrained`, `epoch`.
 * Per key (`<key prefix>:…`): `spent`, `spent:d:<yyyymmdd>`, `spent:m:<yyyymm>` (loaded from
 * Postgres on first use), `reserved` (in flight), `undrained` (charged but not yet in Postgres), `epoch`.
 * Rate limits are GCRA over a 60-second window: a layer's key holds the theoretical arrival time
 * (ms) of its requests and of its tokens, as `<requests TAT> <tokens TAT>`; a request of cost c moves
 * a TAT by c × 60000 / limit and is admitted while it stays within 60 s of now.
 * Concurrency: a sorted set of call id → lease expiry per layer, and one of '<grant id>:<slots>' →
 * expiry (`<layer key>:g`) for the slots grants hold.
 */

/** Lua shared by the scripts that read a layer's rate state: the state, GCRA, the tightest layer. */
export const RATE_STATE = `
-- A layer's GCRA state: '<requests TAT> <tokens TAT>' (ms), both 0 when the key is absent.
local function readTats(k)
  local v = redis.call('GET', k)
  if not v then return 0, 0 end
  local s = string.find(v, ' ', 1, true)
  return tonumber(string.sub(v, 1, s - 1)), tonumber(string.sub(v, s + 1))
end

-- Both TATs under one key, kept until the later one is a second in the past.
local function writeTats(k, tr, tt, now)
  local last = tr > tt and tr or tt
  if last > now then
    redis.call('SET', k, string.format('%.3f %.3f', tr, tt), 'PX', math.ceil(last - now) + 1000)
  else
    redis.call('DEL', k)
  end
end

-- One dimension of one layer: the new TAT (false for a zero limit), where the caller stands before
-- and after the call (remaining, reset), and the wait when it is refused (nil when admitted).
local function gcra(tat, now, limit, cost)
  -- A zero limit admits nothing (and the interval would divide by zero).
  if limit <= 0 then return false, 0, 60, 0, 60, 60, true end
  local T = 60000 / limit
  if tat < now then tat = now end
  local new = tat + cost * T
  local rem = math.floor((60000 - (tat - now)) / T)
  if rem < 0 then rem = 0 end
  local reset = math.ceil((tat - now) / 1000)
  if new - now <= 60000 then
    local after = math.floor((60000 - (new - now)) / T)
    if after < 0 then after = 0 end
    return new, rem, reset, after, math.ceil((new - now) / 1000), nil, false
  end
  local wait = math.ceil((new - 60000 - now) / 1000)
  if wait < 1 then wait = 1 end
  if cost > limit then wait = 60 end
  return new, rem, reset, rem, reset, wait, cost > limit
end

-- The tightest layer per dimension (smallest remaining): h = { limit, remaining, reset } or nil.
local function tighter(h, limit, remaining, reset)
  if h == nil or remaining < h[2] then return { limit, remaining, reset } end
  return h
end

-- Headers for a JSON answer: { requests = {…}, tokens = {…} }, without a dimension no layer limits.
local function headerTable(r, t)
  local hdr = {}
  if r then hdr.requests = { limit = r[1], remaining = r[2], reset = r[3] } end
  if t then hdr.tokens = { limit = t[1], remaining = t[2], reset = t[3] } end
  return hdr
end
`;

/**
 * ARGV[1] = JSON {now, rates: [{k, rpm, tpm}]} (a limit null or absent = not limited) → JSON headers
 * of the tightest layer per dimension; writes nothing.
 */
export const PEEK = `${RATE_STATE}
local p = cjson.decode(ARGV[1])
local hr, ht
for _, r in ipairs(p.rates) do
  local tr, tt = readTats(r.k)
  -- A call of cost 0: where the caller stands now.
  if type(r.rpm) == 'number' then
    local _, rem, reset = gcra(tr, p.now, r.rpm, 0)
    hr = tighter(hr, r.rpm, rem, reset)
  end
  if type(r.tpm) == 'number' then
    local _, rem, reset = gcra(tt, p.now, r.tpm, 0)
    ht = tighter(ht, r.tpm, rem, reset)
  end
end
return cjson.encode(headerTable(hr, ht))
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
