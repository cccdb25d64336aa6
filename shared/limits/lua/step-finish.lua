-- STEP, part 3 of 4 (see step-common.lua): the end of a call (F).
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
