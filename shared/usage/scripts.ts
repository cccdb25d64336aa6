import { readLua } from '../redis/read-lua.js';

/**
 * The usage queue: a Redis list the STEP script appends one record to per call (RPUSH, the record's
 * JSON with its charge), drained from the head in batches by whichever worker holds the drain lock.
 * Entries leave the list only after their batch is committed in Postgres, and the same step lowers
 * the undrained counters, so a crash anywhere in between replays the batch (idempotent in Postgres)
 * and lowers each counter exactly once. Keys and arguments are described at the top of each script
 * in lua/.
 */
export const CLAIM_USAGE = readLua(import.meta.url, 'claim-usage');
export const ACK_USAGE = readLua(import.meta.url, 'ack-usage');
export const MOVE_LEGACY_USAGE = readLua(import.meta.url, 'move-legacy-usage');
