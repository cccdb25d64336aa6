import type { Redis } from 'ioredis';
import { RefreshingCache } from '../cache/refreshing-cache.js';

const MINUTE = 60_000;
const WINDOW_MINUTES = 60;

/**
 * Recent time to first token per model, for `auto:latency`: each process adds its samples to
 * per-minute Redis buckets (sum and count, kept just over an hour) once a second, and reads the
 * hour's average at most every `cacheMs`, one read at a time, served while it is refreshed — no
 * Redis call on a request's path.
 */
export class LatencyTracker {
  private pending = new Map<string, { sum: number; count: number }>();
  /** Averages by the list of models asked (`\0`-joined): the same lists come back call after call. */
  private readonly cached: RefreshingCache<string, Map<string, number>>;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
    cacheMs = 5_000,
    flushEveryMs = 1_000,
  ) {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), flushEveryMs);
    this.timer.unref();
    this.cached = RefreshingCache.of((id) => this.read(id.split('\0')), { freshMs: cacheMs, maxEntries: 1_000, now });
  }

  private bucket(model: string, minute: number): string {
    return `${this.prefix}ttft:{${model}}:${minute}`;
  }

  /** One call's time to first token (ms). */
  record(model: string, ttftMs: number): void {
    const entry = this.pending.get(model) ?? { sum: 0, count: 0 };
    entry.sum += Math.max(0, Math.round(ttftMs));
    entry.count += 1;
    this.pending.set(model, entry);
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const minute = Math.floor(this.now() / MINUTE);
    const pipeline = this.redis.pipeline();
    for (const [model, { sum, count }] of batch) {
      const key = this.bucket(model, minute);
      pipeline
        .hincrby(key, 'sum', sum)
        .hincrby(key, 'count', count)
        .pexpire(key, (WINDOW_MINUTES + 1) * MINUTE);
    }
    await pipeline.exec();
  }

  /** Average time to first token over the last hour, ms, for the models that have samples. */
  averages(models: readonly string[]): Promise<Map<string, number>> {
    return this.cached.get(models.join('\0'));
  }

  private async read(models: readonly string[]): Promise<Map<string, number>> {
    const minute = Math.floor(this.now() / MINUTE);
    const pipeline = this.redis.pipeline();
    for (const model of models)
      for (let m = minute - WINDOW_MINUTES + 1; m <= minute; m++) pipeline.hmget(this.bucket(model, m), 'sum', 'count');
    const replies = (await pipeline.exec()) ?? [];
    const averages = new Map<string, number>();
    models.forEach((model, i) => {
      let sum = 0;
      let count = 0;
      for (let j = 0; j < WINDOW_MINUTES; j++) {
        const [s, c] = (replies[i * WINDOW_MINUTES + j]?.[1] as [string | null, string | null] | undefined) ?? [
          null,
          null,
        ];
        sum += Number(s ?? 0);
        count += Number(c ?? 0);
      }
      if (count > 0) averages.set(model, sum / count);
    });
    return averages;
  }

  close(): void {
    clearInterval(this.timer);
  }
}
