-- KEYS: failures. Gives back a try that was not a guess (never below zero: a success may have
-- cleared the count meanwhile).
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 0
