import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountHealth, type HealthOptions } from '../../shared/routing/account-health.js';
import { LatencyTracker } from '../../shared/routing/latency.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `gwt:${randomBytes(4).toString('hex')}:`;
let redisA: Redis;
let redisB: Redis;
let now = 1_000_000;
const clock = () => now;
const options: HealthOptions = { threshold: 3, windowMs: 30_000, cooldownMs: 1_000, maxCooldownMs: 8_000, cacheMs: 0 };

beforeAll(() => {
  redisA = new Redis(REDIS_URL);
  redisB = new Redis(REDIS_URL);
});
afterAll(async () => {
  const keys = await redisA.keys(`${prefix}*`);
  if (keys.length) await redisA.del(...keys);
  redisA.disconnect();
  redisB.disconnect();
});

describe('account health shared through Redis', () => {
  it('opens after repeated failures seen by two processes, half-opens after the cooldown for one prober, and closes on success', async () => {
    const a = new AccountHealth(redisA, prefix, clock, options);
    const b = new AccountHealth(redisB, prefix, clock, options);
    expect((await b.states(['acct-1'])).get('acct-1')).toBe('closed');
    expect(await a.failure('acct-1')).toBe(0);
    expect(await b.failure('acct-1')).toBe(0);
    expect(await a.failure('acct-1')).toBe(1_000);
    expect((await b.states(['acct-1'])).get('acct-1')).toBe('open');
    now += 1_001;
    expect((await b.states(['acct-1'])).get('acct-1')).toBe('half-open');
    expect(await a.tryProbe('acct-1')).toBe(true);
    expect(await b.tryProbe('acct-1')).toBe(false);
    // The probe fails: rested again, twice as long.
    for (let i = 0; i < 3; i++) await a.failure('acct-1');
    const reopened = await redisA.get(`${prefix}health:{acct-1}:open`);
    expect(reopened?.split(' ')[1]).toBe('2000');
    now += 2_001;
    expect(await b.tryProbe('acct-1')).toBe(true);
    await b.success('acct-1');
    expect((await a.states(['acct-1'])).get('acct-1')).toBe('closed');
  });

  it('rests an account at once on a 429 for its Retry-After', async () => {
    const a = new AccountHealth(redisA, prefix, clock, options);
    expect(await a.failure('acct-429', 5_000)).toBe(5_000);
    expect((await a.states(['acct-429'])).get('acct-429')).toBe('open');
  });
});

describe('latency samples', () => {
  it('averages the last hour of samples from several processes', async () => {
    const t1 = new LatencyTracker(redisA, prefix, clock, 0, 60_000);
    const t2 = new LatencyTracker(redisB, prefix, clock, 0, 60_000);
    t1.record('fast', 100);
    t1.record('fast', 200);
    t2.record('slow', 900);
    await Promise.all([t1.flush(), t2.flush()]);
    expect(await t1.averages(['fast', 'slow', 'none'])).toEqual(
      new Map([
        ['fast', 150],
        ['slow', 900],
      ]),
    );
    now += 61 * 60_000;
    expect(await t1.averages(['fast', 'slow'])).toEqual(new Map());
    t1.close();
    t2.close();
  });
});
