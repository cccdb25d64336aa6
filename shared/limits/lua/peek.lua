-- The rate-limit view: where the caller stands, for answers that take nothing (runs after
-- rate-state.lua). Writes nothing.
-- ARGV[1] = JSON {now, rates: [{k, rpm, tpm}]} (a limit null or absent = not limited)
--   → JSON headers of the tightest layer per dimension.
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
