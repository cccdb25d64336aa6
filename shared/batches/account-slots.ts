import type { Redis } from 'ioredis';

// A slot is a member of the account's set scored by when it lapses: a worker that died holding
// slots frees them when their time runs out, as a concurrency lease does (shared/limits/). A
// holder is a lane of a batch (`<batch>:<lane>`), so the run that resumes a batch after a crash
// takes its lanes' slots back at once instead of waiting for them to lapse.
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if not redis.call('ZSCORE', KEYS[1], ARGV[4]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/**
 * The account's batch concurrency (BATCH_CONCURRENCY) across all its batches and all workers:
 * each line runs holding a slot. A slot lapses after `ttlMs` (longer than a line may take).
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
}
