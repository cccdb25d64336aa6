import type { Redis } from 'ioredis';

// Scans the usage queue (in pages of 1,000, at most ARGV[3] entries) for a record holding both needles.
const FIND_QUEUED = `
local limit = tonumber(ARGV[3])
for from = 0, limit - 1, 1000 do
  local items = redis.call('LRANGE', KEYS[1], from, from + 999)
  if #items == 0 then return 0 end
  for _, item in ipairs(items) do
    if string.find(item, ARGV[1], 1, true) and string.find(item, ARGV[2], 1, true) then return 1 end
  end
end
return 0`;

/** The most queue entries one look scans: far more than a healthy drain ever leaves behind. */
const SCAN_LIMIT = 20_000;

/**
 * Whether a usage record of this account with this request or session id waits in the usage queue
 * (answered to its client, not yet written to Postgres by the drain). Records are the JSON of a
 * UsageEvent, so the needles are that JSON's own spelling of the two fields.
 */
export async function usageQueued(
  redis: Redis,
  queue: string,
  userId: string,
  field: 'request_id' | 'session_id',
  value: string,
): Promise<boolean> {
  const found = await redis.eval(
    FIND_QUEUED,
    1,
    queue,
    `"${field}":${JSON.stringify(value)}`,
    `"user_id":${JSON.stringify(userId)}`,
    SCAN_LIMIT,
  );
  return found === 1;
}
