// A batch lane keeps its account slot from line to line (shared/batches/account-slots.ts LaneSlot):
// the account's bound still holds across lanes, a kept slot costs no Redis call until its lease is
// due for renewal, and a lane that gives its slot back lets another lane take it.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountSlots } from '../../shared/batches/account-slots.js';
import { defineScripts } from '../../shared/lifecycle/redis-scripts.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `gwt:${randomBytes(4).toString('hex')}:`;
const slotsKey = (user: string) => `${prefix}batch:slots:${user}`;
let redis: Redis;

beforeAll(() => {
  redis = new Redis(REDIS_URL);
  defineScripts(redis);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe('a lane keeps its account slot', () => {
  it('bounds the account across lanes; a released slot goes to the next lane', async () => {
    const slots = new AccountSlots(redis, prefix, 1, 60_000);
    const a = slots.lane('u1', 'batch_a:0', 30_000);
    const b = slots.lane('u1', 'batch_b:0', 30_000);
    expect(await a.take()).toBe(true);
    expect(await b.take()).toBe(false);
    // A runs its next line on the slot it holds; B is still refused.
    expect(await a.take()).toBe(true);
    expect(await b.take()).toBe(false);
    await a.release();
    expect(await redis.zrange(slotsKey('u1'), '0', '-1')).toEqual([]);
    expect(await b.take()).toBe(true);
    expect(await a.take()).toBe(false);
    await b.release();
    // Releasing a slot not held asks Redis nothing and takes nobody's slot away.
    expect(await a.take()).toBe(true);
    await b.release();
    expect(await redis.zrange(slotsKey('u1'), '0', '-1')).toEqual(['batch_a:0']);
    await a.release();
  });

  it('a young lease is kept without a Redis call; an old one is renewed in Redis', async () => {
    const slots = new AccountSlots(redis, prefix, 2, 60_000);
    const kept = slots.lane('u2', 'batch_c:0', 30_000);
    expect(await kept.take()).toBe(true);
    // The set emptied behind the lane's back: a young lease does not look, so it is not put back.
    await redis.del(slotsKey('u2'));
    expect(await kept.take()).toBe(true);
    expect(await redis.zcard(slotsKey('u2'))).toBe(0);

    const renewed = slots.lane('u2', 'batch_c:1', 0);
    expect(await renewed.take()).toBe(true);
    const first = Number(await redis.zscore(slotsKey('u2'), 'batch_c:1'));
    await redis.del(slotsKey('u2'));
    expect(await renewed.take()).toBe(true);
    const second = Number(await redis.zscore(slotsKey('u2'), 'batch_c:1'));
    expect(second).toBeGreaterThanOrEqual(first);
    expect(await redis.pttl(slotsKey('u2'))).toBeGreaterThan(50_000);
    await renewed.release();
    await kept.release();
  });
});
