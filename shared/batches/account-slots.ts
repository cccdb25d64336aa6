import type { Redis } from 'ioredis';
import { readLua } from '../redis/read-lua.js';

/** Takes or renews a slot (registered as gwTakeBatchSlot: shared/lifecycle/redis-scripts.ts). */
export const TAKE_SLOT = readLua(import.meta.url, 'take-slot');

/**
 * The account's batch concurrency (BATCH_CONCURRENCY) across all its batches and all workers:
 * each running line holds a slot. A slot lapses after `ttlMs` (longer than a line may take, plus
 * `LaneSlot`'s renewal period).
 */
export class AccountSlots {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly max: number,
    private readonly ttlMs: number,
  ) {}

  private key(userId: string): string {
    return `${this.prefix}batch:slots:${userId}`;
  }

  /**
   * A slot for `holder` (`<batch>:<lane>`): slots of a worker that died lapse after `ttlMs`, and
   * the run that resumes a batch after a crash takes its lanes' slots back at once (the holder
   * already has them), instead of waiting for them to lapse.
   */
  async take(userId: string, holder: string): Promise<boolean> {
    const now = Date.now();
    const taken = await this.redis.gwTakeBatchSlot(
      this.key(userId),
      now,
      now + this.ttlMs,
      this.max,
      holder,
      this.ttlMs,
    );
    return taken === 1;
  }

  async release(userId: string, holder: string): Promise<void> {
    await this.redis.zrem(this.key(userId), holder);
  }

  /** The slot of one lane, kept from line to line (see LaneSlot). */
  lane(userId: string, holder: string, renewAfterMs: number): LaneSlot {
    return new LaneSlot(this, userId, holder, renewAfterMs);
  }
}

/**
 * A lane's slot, kept while the lane runs lines back to back and given back when it waits or
 * ends, rather than taken and released around every line: why, in
 * docs/decisions/0011-batch-lanes-keep-their-slot.md. The lease is renewed once it is `renewAfterMs` old, before a line starts: a line started
 * under it ends before the lease lapses as long as `renewAfterMs` + the longest line < `ttlMs`.
 */
export class LaneSlot {
  /** When the lease was last taken or renewed (Date.now()); 0 while the slot is not held. */
  private takenAt = 0;

  constructor(
    private readonly slots: AccountSlots,
    private readonly userId: string,
    private readonly holder: string,
    private readonly renewAfterMs: number,
  ) {}

  /** Whether the lane holds its slot now: true at once while the lease is young. */
  async take(): Promise<boolean> {
    const now = Date.now();
    if (this.takenAt !== 0 && now - this.takenAt < this.renewAfterMs) return true;
    const taken = await this.slots.take(this.userId, this.holder);
    this.takenAt = taken ? now : 0;
    return taken;
  }

  async release(): Promise<void> {
    if (this.takenAt === 0) return;
    this.takenAt = 0;
    await this.slots.release(this.userId, this.holder);
  }
}
