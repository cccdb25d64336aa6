-- Takes (or renews) one of an account's batch slots (shared/batches/account-slots.ts). A slot is a
-- member of the account's sorted set, scored by when its lease lapses: slots of a worker that died
-- lapse on their own, as a concurrency lease does. Taking a slot the holder already has renews it,
-- whatever the count.
-- KEYS[1] the account's slot set
-- ARGV: now (ms), lapses at (ms), the most slots, the holder (`<batch>:<lane>`), the set's TTL (ms)
-- → 1 taken or renewed, 0 every slot is held by others
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if not redis.call('ZSCORE', KEYS[1], ARGV[4]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
