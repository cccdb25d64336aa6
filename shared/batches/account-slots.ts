import type { Redis } from 'ioredis';

// A slot is a member of the account's set scored by when it lapses: a worker that died holding
// slots frees them when their time runs out, as a concurrency lease does (shared/limits/). A
// holder is a lane of a batch (`<batch>:<lane>`), so the run that resumes a batch after a crash
// takes its lanes' slots back at once instead of waiting for them to lapse. Taking a slot one
// already holds renews its lease.
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if not redis.call('ZSCORE', KEYS[1], ARGV[4]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

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

  async take(userId: string, holder: string): Promise<boolean> {
    const now = Date.now();
    const taken = await this.redis.eval(TAKE, 1, this.key(userId), now, now + this.ttlMs, this.max, holder, this.ttlMs);
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
 * ends. Taking and releasing it around every line cost two Redis calls per line, and their
 * garbage (an ioredis auto-pipeline and command per call, outliving the young generation at
 * ~600 lines/s) was most of what the batch worker's heap grew by (bench/README.md, Batches).
 * The lease is renewed once it is `renewAfterMs` old, before a line starts: a line started
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
