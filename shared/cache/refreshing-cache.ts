export interface RefreshingCacheOptions<V> {
  /** How long a loaded value is fresh, ms (it may depend on the value: a "no such thing" kept for less). */
  freshMs: number | ((value: V) => number);
  /**
   * How long past fresh the value is still served at once while one refresh runs, ms (default:
   * freshMs). Past that, callers wait for the refresh, and get the old value if it fails.
   */
  staleMs?: number | ((value: V) => number);
  /** After a failed refresh, the old value is served without another try for this long, ms. Default 1,000. */
  retryMs?: number;
  /** Entries kept; past it the oldest goes (a process that saw many keys stays small). Default 50,000. */
  maxEntries?: number;
  /** The clock, ms. Default performance.now. */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  freshUntil: number;
  staleUntil: number;
  /** Set when a refresh failed: no other try before it (the value is served meanwhile). */
  retryAt: number;
}

const WAIT: unique symbol = Symbol('wait');
const ignore = () => {};

/**
 * A per-call read cache that never lets a crowd through to the store behind it (Postgres, Redis):
 * - single flight: concurrent callers of a key share one lookup;
 * - stale while revalidate: a value past fresh is served at once while one refresh runs, so a busy
 *   key never waits on its store;
 * - stale if error: when the refresh fails (the store away), callers get the last value instead of
 *   the error, and the store is tried again only after `retryMs`.
 * An invalidation (`delete`, `deleteWhere`, `clear`) also discards the lookups in flight, so a value
 * read before a change is never stored after it.
 */
export class RefreshingCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly loading = new Map<K, Promise<V>>();
  private readonly now: () => number;

  /** `loadMany` answers the values of the keys in their order (one round trip for several keys). */
  constructor(
    private readonly loadMany: (keys: K[]) => Promise<V[]>,
    private readonly options: RefreshingCacheOptions<V>,
  ) {
    this.now = options.now ?? (() => performance.now());
  }

  /** A cache whose values are looked up one key at a time. */
  static of<K, V>(load: (key: K) => Promise<V>, options: RefreshingCacheOptions<V>): RefreshingCache<K, V> {
    return new RefreshingCache<K, V>((keys) => Promise.all(keys.map(load)) as Promise<V[]>, options);
  }

  /**
   * The value without waiting, when one may be served now (its refresh starts if due), else
   * undefined: the caller then awaits `get`. V must not itself include undefined.
   */
  peek(key: K, now = this.now()): V | undefined {
    const value = this.serve(key, now);
    return value === WAIT ? undefined : value;
  }

  get(key: K): Promise<V> {
    const value = this.serve(key, this.now());
    return value === WAIT ? this.awaitLoad(key) : Promise.resolve(value);
  }

  /** Several keys at once: those that must be read from the store are read in one `loadMany`. */
  getMany(keys: readonly K[]): Promise<V[]> {
    const now = this.now();
    const due: K[] = [];
    const values: (V | typeof WAIT)[] = [];
    let waits = false;
    for (const key of keys) {
      const value = this.serve(key, now, due);
      if (value === WAIT) {
        waits = true;
        if (!this.loading.has(key) && !due.includes(key)) due.push(key);
      }
      values.push(value);
    }
    if (due.length > 0) this.load(due);
    if (!waits) return Promise.resolve(values as V[]);
    return Promise.all(values.map((value, i) => (value === WAIT ? this.awaitLoad(keys[i]!) : value)));
  }

  /** A value known without the store (this process just changed it). */
  set(key: K, value: V): void {
    this.loading.delete(key);
    this.store(key, value);
  }

  delete(key: K): void {
    this.entries.delete(key);
    this.loading.delete(key);
  }

  /** Drops the entries `match` picks, and every lookup in flight (it may carry what changed). */
  deleteWhere(match: (value: V, key: K) => boolean): void {
    for (const [key, entry] of this.entries) if (match(entry.value, key)) this.entries.delete(key);
    this.loading.clear();
  }

  clear(): void {
    this.entries.clear();
    this.loading.clear();
  }

  /**
   * The held value if it may be served at `now`, else WAIT. A refresh that is due is started here
   * (alone), or added to `due` for the caller to start with others in one lookup.
   */
  private serve(key: K, now: number, due?: K[]): V | typeof WAIT {
    const entry = this.entries.get(key);
    if (!entry) return WAIT;
    if (now < entry.freshUntil) return entry.value;
    if (now < entry.staleUntil || now < entry.retryAt) {
      if (now >= entry.retryAt && !this.loading.has(key)) {
        if (due) due.push(key);
        else this.load([key]);
      }
      return entry.value;
    }
    return WAIT;
  }

  /** The lookup in flight for the key (started if none); an entry held when it fails is served instead. */
  private awaitLoad(key: K): Promise<V> {
    let loading = this.loading.get(key);
    if (!loading) {
      this.load([key]);
      loading = this.loading.get(key)!;
    }
    const held = this.entries.get(key);
    if (!held) return loading;
    // The store is away: the last value rather than an error, unless it was dropped meanwhile.
    return loading.catch((err: unknown) => {
      if (this.entries.get(key) === held) return held.value;
      throw err;
    });
  }

  private load(keys: K[]): void {
    let batch: Promise<V[]>;
    try {
      batch = this.loadMany(keys);
    } catch (err) {
      batch = Promise.reject(err);
    }
    keys.forEach((key, i) => {
      const loading: Promise<V> = batch.then(
        (values) => {
          const value = values[i] as V;
          // Not this lookup's any more (an invalidation, or a newer value set): its answer is not kept.
          if (this.loading.get(key) === loading) {
            this.loading.delete(key);
            this.store(key, value);
          }
          return value;
        },
        (err: unknown) => {
          if (this.loading.get(key) === loading) {
            this.loading.delete(key);
            const held = this.entries.get(key);
            if (held) held.retryAt = this.now() + (this.options.retryMs ?? 1_000);
          }
          throw err;
        },
      );
      // A background refresh has no caller to hear its failure: the entry's retryAt records it.
      loading.catch(ignore);
      this.loading.set(key, loading);
    });
  }

  private store(key: K, value: V): void {
    const { freshMs, staleMs = freshMs, maxEntries = 50_000 } = this.options;
    const fresh = typeof freshMs === 'number' ? freshMs : freshMs(value);
    const stale = typeof staleMs === 'number' ? staleMs : staleMs(value);
    if (!this.entries.has(key) && this.entries.size >= maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    const now = this.now();
    this.entries.set(key, { value, freshUntil: now + fresh, staleUntil: now + fresh + stale, retryAt: 0 });
  }
}
