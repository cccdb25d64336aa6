-- A failure of an upstream route counted in Redis (shared/routing/account-health.ts).
-- KEYS: failures counter, open marker ("<until ms> <cooldown ms>"). ARGV: now, window, threshold,
-- base cooldown, max cooldown, retry-after ms (0 = none). Returns the cooldown set, or 0.
local fails = redis.call('INCR', KEYS[1])
if fails == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
local retry = tonumber(ARGV[6])
if fails < tonumber(ARGV[3]) and retry == 0 then return 0 end
local now, base, max = tonumber(ARGV[1]), tonumber(ARGV[4]), tonumber(ARGV[5])
local prev = redis.call('GET', KEYS[2])
local cooldown = base
if prev then
  local _, _, _, last = string.find(prev, '^(%d+) (%d+)$')
  if last then cooldown = math.min(tonumber(last) * 2, max) end
end
if retry > cooldown then cooldown = math.min(retry, max) end
redis.call('SET', KEYS[2], (now + cooldown) .. ' ' .. cooldown, 'PX', cooldown * 4 + 60000)
redis.call('DEL', KEYS[1])
return cooldown
