import type { Redis } from 'ioredis';
import { RefreshingCache } from '../cache/refreshing-cache.js';
import { readLua } from '../redis/read-lua.js';

/**
 * Health of upstream routes (an account of a provider, for one upstream model: providers such as
 * OpenAI rate-limit per model), shared by every API and worker process through Redis: a route that
 * fails `threshold` times within `windowMs`, or answers 429, is rested (open) for a cooldown that
 * doubles on each relapse up to `maxCooldownMs`; once the cooldown is over one process at a time
 * may probe it (half-open), and a success closes it again.
 */
export interface HealthOptions {
  /** 0 turns resting off: every route is always tried (no Redis call either). */
  threshold: number;
  windowMs: number;
  cooldownMs: number;
  maxCooldownMs: number;
  /** How long a process trusts the states it read, ms: routing costs no Redis call per request. */
  cacheMs: number;
}

export const DEFAULT_HEALTH: HealthOptions = {
  threshold: 3,
  windowMs: 30_000,
  cooldownMs: 15_000,
  maxCooldownMs: 300_000,
  cacheMs: 500,
};

export type AccountState = 'closed' | 'open' | 'half-open';

// Counts a failure and rests the route past the threshold (or at once on a 429's Retry-After).
const FAILURE = readLua(import.meta.url, 'health-failure');

export class AccountHealth {
  /** Per route: until when it rests (epoch ms), 0 when closed; the state follows from the clock at each read. */
  private readonly restedUntil: RefreshingCache<string, number>;
  /** Accounts this process reported failures for since their last success: a success must clear the counter. */
  private failuresSeen = new Set<string>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
    private readonly options: HealthOptions = DEFAULT_HEALTH,
  ) {
    redis.defineCommand('gwHealthFailure', { numberOfKeys: 2, lua: FAILURE });
    // One MGET for every route a call needs that is due; a busy route is refreshed while served.
    this.restedUntil = new RefreshingCache(
      async (accounts) => {
        const values = await this.redis.mget(...accounts.map((a) => this.keys(a).open));
        return values.map((v) => (v == null ? 0 : Number(v.split(' ')[0]) || 0));
      },
      { freshMs: options.cacheMs, now },
    );
  }

  private keys(account: string) {
    return {
      fails: `${this.prefix}health:{${account}}:fails`,
      open: `${this.prefix}health:{${account}}:open`,
      probe: `${this.prefix}health:{${account}}:probe`,
    };
  }

  /** The states of these accounts, read in one MGET at most every `cacheMs`. */
  async states(accounts: readonly string[]): Promise<Map<string, AccountState>> {
    if (this.options.threshold === 0) return new Map(accounts.map((a) => [a, 'closed']));
    const until = await this.restedUntil.getMany(accounts);
    const now = this.now();
    return new Map(accounts.map((a, i) => [a, stateAt(until[i]!, now)]));
  }

  /** A half-open account may be tried by one process at a time (for up to 10 s). */
  async tryProbe(account: string): Promise<boolean> {
    return (await this.redis.set(this.keys(account).probe, '1', 'PX', 10_000, 'NX')) === 'OK';
  }

  /** Counts a failure; returns the cooldown (ms) when it rested the account. */
  async failure(account: string, retryAfterMs = 0): Promise<number> {
    if (this.options.threshold === 0) return 0;
    const k = this.keys(account);
    const o = this.options;
    this.failuresSeen.add(account);
    const now = this.now();
    const cooldown = Number(
      await (
        this.redis as unknown as { gwHealthFailure(...args: (string | number)[]): Promise<number> }
      ).gwHealthFailure(
        k.fails,
        k.open,
        now,
        o.windowMs,
        o.threshold,
        o.cooldownMs,
        o.maxCooldownMs,
        Math.max(0, Math.round(retryAfterMs)),
      ),
    );
    if (cooldown > 0) {
      this.restedUntil.set(account, now + cooldown);
      await this.redis.del(k.probe);
    }
    return cooldown;
  }

  /** A success closes the account; it costs a Redis call only when the account was not known closed. */
  async success(account: string): Promise<void> {
    if (this.options.threshold === 0) return;
    if (this.restedUntil.peek(account) === 0 && !this.failuresSeen.has(account)) return;
    const k = this.keys(account);
    await this.redis.del(k.fails, k.open, k.probe);
    this.failuresSeen.delete(account);
    this.restedUntil.set(account, 0);
  }
}

function stateAt(restedUntil: number, now: number): AccountState {
  if (restedUntil === 0) return 'closed';
  return restedUntil > now ? 'open' : 'half-open';
}
