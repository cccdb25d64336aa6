import { readLua } from '../redis/read-lua.js';

/**
 * The gateway's limit scripts, read once when the process starts from `lua/` beside this module
 * (the build copies them next to the compiled file): STEP (steps 5 and 6 of the pipeline and the end
 * of a call), PEEK (the rate-limit view), RENEW (lease renewal) and CONSUME (the generic limiter).
 *
 * Per account: `bal` (spendable micro-USD; reservations already taken out) and `resv` (call id →
 * `<expiry ms>:<amount>:<the key's reserved counter, if it holds one>`), `undrained`, `epoch`.
 * Per key (`<key prefix>:…`): `spent:total`, `spent:d:<yyyymmdd>`, `spent:w:<yyyy>W<ww>` (ISO week),
 * `spent:m:<yyyymm>` (loaded from Postgres on first use; the quota caps and the budget count against
 * them), `reserved` (in flight), `undrained` (charged but not yet in Postgres), `epoch`.
 * Rate limits are GCRA over a 60-second window (lua/rate-state.lua).
 * Concurrency: a sorted set of call id → lease expiry per layer, and one of '<grant id>:<slots>' →
 * expiry (`<layer key>:g`) for the slots grants hold.
 */
const lua = (name: string) => readLua(import.meta.url, name);

/** Lua shared by the scripts that read a layer's rate state: the state, GCRA, the tightest layer. */
export const RATE_STATE = lua('rate-state');
/** One script in five files, read as one (lua/step-common.lua says how they fit). */
export const STEP = [RATE_STATE, ...['step-common', 'step-admit', 'step-finish', 'step'].map(lua)].join('\n');
export const PEEK = `${RATE_STATE}\n${lua('peek')}`;
export const RENEW = lua('renew');
export const CONSUME = lua('consume');
