import type { Redis } from 'ioredis';
import { TAKE_SLOT } from '../batches/account-slots.js';
import { CREDIT, LOAD_BALANCE, LOAD_QUOTA } from '../billing/scripts.js';
import { SIGN_IN_ATTEMPT, SIGN_IN_RELEASE } from '../console/sign-in-guard.js';
import { CONSUME, PEEK, RENEW, STEP } from '../limits/scripts.js';
import { CACHE_PURGE, CACHE_STORE } from '../response-cache/scripts.js';
import { ACK_USAGE, CLAIM_USAGE, MOVE_LEGACY_USAGE } from '../usage/scripts.js';

type Reply = Promise<unknown>;
declare module 'ioredis' {
  interface RedisCommander {
    gwStep(...ops: (string | number)[]): Reply;
    gwPeek(plan: string): Reply;
    gwRenew(now: number, leaseExpiry: number, reservationExpiry: number, ...calls: (string | number)[]): Reply;
    gwConsume(plan: string): Reply;
    gwLoadBalance(bal: string, epoch: string, seen: string, value: number): Reply;
    gwLoadQuota(
      t: string,
      d: string,
      m: string,
      w: string,
      legacyTotal: string,
      epoch: string,
      seen: string,
      total: number,
      day: number,
      month: number,
      week: number,
    ): Reply;
    gwCredit(bal: string, epoch: string, amount: number): Reply;
    gwClaimUsage(queue: string, lock: string, token: string, lockTtlMs: number, count: number): Reply;
    /** gwClaimUsage answering Buffers: the records pass through to Postgres without being decoded. */
    gwClaimUsageBuffer(
      queue: string,
      lock: string,
      token: string,
      lockTtlMs: number,
      count: number,
    ): Promise<Buffer[] | null>;
    gwAckUsage(
      queue: string,
      lock: string,
      deadList: string,
      token: string,
      count: number,
      deadCount: number,
      ...rest: (string | number | Buffer)[]
    ): Reply;
    gwMoveLegacyUsage(stream: string, queue: string, count: number): Reply;
    gwSignInAttempt(failures: string, lock: string, windowMs: number, threshold: number): Reply;
    gwSignInRelease(failures: string): Reply;
    gwCacheStore(
      entry: string,
      account: string,
      keyIndex: string,
      bytes: string,
      sizes: string,
      expiries: string,
      value: Buffer | string,
      ttlMs: number,
      size: number,
      maxBytes: number,
      now: number,
    ): Reply;
    gwCachePurge(index: string, bytes: string, sizes: string, expiries: string, count: number): Reply;
    gwTakeBatchSlot(slots: string, now: number, lapsesAt: number, max: number, holder: string, ttlMs: number): Reply;
  }
}

/** Registers the gateway's scripts on a connection (EVALSHA, reloaded transparently after a Redis restart). */
export function defineScripts(redis: Redis): void {
  redis.defineCommand('gwStep', { numberOfKeys: 0, lua: STEP });
  redis.defineCommand('gwPeek', { numberOfKeys: 0, lua: PEEK });
  redis.defineCommand('gwRenew', { numberOfKeys: 0, lua: RENEW });
  redis.defineCommand('gwConsume', { numberOfKeys: 0, lua: CONSUME });
  redis.defineCommand('gwLoadBalance', { numberOfKeys: 2, lua: LOAD_BALANCE });
  redis.defineCommand('gwLoadQuota', { numberOfKeys: 6, lua: LOAD_QUOTA });
  redis.defineCommand('gwCredit', { numberOfKeys: 2, lua: CREDIT });
  redis.defineCommand('gwClaimUsage', { numberOfKeys: 2, lua: CLAIM_USAGE });
  redis.defineCommand('gwAckUsage', { numberOfKeys: 3, lua: ACK_USAGE });
  redis.defineCommand('gwMoveLegacyUsage', { numberOfKeys: 2, lua: MOVE_LEGACY_USAGE });
  redis.defineCommand('gwSignInAttempt', { numberOfKeys: 2, lua: SIGN_IN_ATTEMPT });
  redis.defineCommand('gwSignInRelease', { numberOfKeys: 1, lua: SIGN_IN_RELEASE });
  redis.defineCommand('gwCacheStore', { numberOfKeys: 6, lua: CACHE_STORE });
  redis.defineCommand('gwCachePurge', { numberOfKeys: 4, lua: CACHE_PURGE });
  redis.defineCommand('gwTakeBatchSlot', { numberOfKeys: 1, lua: TAKE_SLOT });
}
