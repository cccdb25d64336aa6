import type { Redis } from 'ioredis';
import { readLua } from '../redis/read-lua.js';

// Scans the queue for a record holding both needles (lua/find-queued.lua).
const FIND_QUEUED = readLua(import.meta.url, 'find-queued');

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
