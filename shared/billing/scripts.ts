/**
 * Loading and crediting the money state that the admission and finish scripts (shared/limits/
 * scripts.ts) work on. `epoch` is bumped by anything that moves money while a counter is not
 * loaded, so a concurrent loader knows its snapshot is stale and loads again.
 */

/** KEYS bal epoch · ARGV epoch_seen value → 1 set | 0 already loaded | -1 stale snapshot */
export const LOAD_BALANCE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;

/** KEYS t d m epoch · ARGV epoch_seen total day month → 1 | 0 | -1, like LOAD_BALANCE. */
export const LOAD_QUOTA = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if (redis.call('GET', KEYS[4]) or '0') ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[3], 'PX', 259200000)
redis.call('SET', KEYS[3], ARGV[4], 'PX', 3456000000)
return 1
`;

/** KEYS bal epoch · ARGV amount. A credit committed in Postgres reaches the loaded balance. */
export const CREDIT = `
redis.call('INCR', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('INCRBY', KEYS[1], ARGV[1]) end
return 1
`;
