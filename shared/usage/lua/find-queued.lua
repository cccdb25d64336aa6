-- Scans the usage queue (in pages of 1,000, at most ARGV[3] entries) for a record holding both needles
-- (shared/usage/queued.ts). KEYS queue · ARGV needle1 needle2 limit → 1 found | 0.
local limit = tonumber(ARGV[3])
for from = 0, limit - 1, 1000 do
  local items = redis.call('LRANGE', KEYS[1], from, from + 999)
  if #items == 0 then return 0 end
  for _, item in ipairs(items) do
    if string.find(item, ARGV[1], 1, true) and string.find(item, ARGV[2], 1, true) then return 1 end
  end
end
return 0
