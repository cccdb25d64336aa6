import { readLua } from '../redis/read-lua.js';

/**
 * The response cache's memory bound and purge, each one atomic step: storing an entry counts its
 * bytes against CACHE_MAX_BYTES (and gives back those of entries Redis expired), a purge removes
 * an account's or a key's entries with their bytes. Keys and arguments are described at the top
 * of each script in lua/.
 */
export const CACHE_STORE = readLua(import.meta.url, 'cache-store');
export const CACHE_PURGE = readLua(import.meta.url, 'cache-purge');
