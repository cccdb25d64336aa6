-- Shared by the scripts that read a layer's rate state (prepended to peek.lua and step.lua by
-- shared/limits/scripts.ts): the state, GCRA, the tightest layer.
--
-- Rate limits are GCRA over a 60-second window: a layer's key holds the theoretical arrival time
-- (ms) of its requests and of its tokens, as '<requests TAT> <tokens TAT>'; a request of cost c
-- moves a TAT by c × 60000 / limit and is admitted while it stays within 60 s of now.
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
