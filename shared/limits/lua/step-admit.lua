-- STEP, part 2 of 4 (see step-common.lua): an admission (A) or a grant taken (G).
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
