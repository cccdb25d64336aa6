-- Generic limits (per source IP, per key, code-sending cooldowns; shared/limits/limiter.ts).
-- ARGV[1] = JSON {now, rules: [{k, limit, windowMs}]} → {ok} or {fail, index, retry}.
-- All rules admit or none is consumed.
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
