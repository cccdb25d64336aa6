-- STEP, part 4 of 4 (see step-common.lua): a grant given back (R), and the loop over the operations.
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
