-- A credit committed in Postgres reaches the loaded balance (shared/billing/balance.ts).
-- KEYS bal epoch · ARGV amount.
redis.call('INCR', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('INCRBY', KEYS[1], ARGV[1]) end
return 1
