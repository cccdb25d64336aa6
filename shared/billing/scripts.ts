import { readLua } from '../redis/read-lua.js';

/**
 * Loading and crediting the money state that the admission and finish scripts (shared/limits/
 * scripts.ts) work on. `epoch` is bumped by anything that moves money while a counter is not
 * loaded, so a concurrent loader knows its snapshot is stale and loads again. Keys and arguments
 * are described at the top of each script in lua/.
 */
export const LOAD_BALANCE = readLua(import.meta.url, 'load-balance');
export const LOAD_QUOTA = readLua(import.meta.url, 'load-quota');
export const CREDIT = readLua(import.meta.url, 'credit');
