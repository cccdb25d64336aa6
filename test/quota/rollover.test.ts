import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCatalog } from '../support/catalog.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';
import { controlClock, errorOf, keyUsage, retryAfter } from '../support/limits.js';
import { drained, usageRecords } from '../support/money.js';

// Days and months are UTC calendar periods; the domain clock is moved across their boundaries.
// Each test uses a later time than the one before, so no counter ever sees time go backwards.
const COST = 100;
const clock = controlClock();
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    clock,
    // Every call runs to its max_tokens, so each costs exactly COST.
    sim: { defaults: { naturalLength: false } },
    catalog: (url) => {
      const base = testCatalog(url);
      const flat = {
        id: 'flat-sim',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'sim', upstream_model: 'sim-model' }],
        pricing: { input_per_mtok: 0, output_per_mtok: 1_000_000 },
      };
      return { ...base, models: [...base.models, flat] };
    },
  });
});
afterAll(() => gw.close());

let n = 0;
const call = (key: string) => postChat(gw.url, key, chatRequest('flat-sim', `call ${++n}`, { max_tokens: COST }));

describe('daily caps', () => {
  it('a daily cap exhausted today admits again once the clock passes 00:00 UTC, and Retry-After says when', async () => {
    clock.set(Date.UTC(2031, 0, 15, 23, 59, 0));
    const acct = await gw.account({ balance: 1_000_000, key: { daily_micro_usd: 2 * COST } });
    expect((await call(acct.key)).status).toBe(200);
    expect((await call(acct.key)).status).toBe(200);
    const refused = await call(acct.key);
    expect(refused.status).toBe(429);
    expect(errorOf(refused)).toMatchObject({
      code: 'quota_exceeded',
      message: expect.stringMatching(new RegExp(`^this key's daily quota of ${2 * COST} micro-USD would be exceeded`)),
    });
    const wait = retryAfter(refused);
    expect(wait).toBeGreaterThanOrEqual(59);
    expect(wait).toBeLessThanOrEqual(60);

    clock.advance((wait - 1) * 1000);
    expect((await call(acct.key)).status).toBe(429); // still the 15th
    clock.advance(1000);
    expect(new Date(clock.now()).toISOString()).toMatch(/^2031-01-16T00:00:0/);
    expect((await call(acct.key)).status).toBe(200);
    expect((await call(acct.key)).status).toBe(200);
    expect((await call(acct.key)).status).toBe(429);

    const view = await keyUsage(gw, acct.key);
    expect(view.json.quota).toMatchObject({
      daily_micro_usd: 2 * COST,
      used_daily_micro_usd: 2 * COST,
      remaining_daily_micro_usd: 0,
      used_monthly_micro_usd: 4 * COST,
      used_total_micro_usd: 4 * COST,
    });

    // Rebuilt from Postgres (Redis lost the counters): the records' UTC days give the same split.
    await drained(gw);
    const records = (await usageRecords(gw.services.db, acct.userId)).filter((r) => r.charged_micro_usd > 0);
    expect(records.map((r) => r.created_at.toISOString().slice(0, 10)).sort()).toEqual([
      '2031-01-15',
      '2031-01-15',
      '2031-01-16',
      '2031-01-16',
    ]);
    await deleteSpendCounters(acct.keyId);
    const rebuilt = await keyUsage(gw, acct.key);
    expect(rebuilt.json.quota).toMatchObject({
      used_daily_micro_usd: 2 * COST,
      used_monthly_micro_usd: 4 * COST,
      used_total_micro_usd: 4 * COST,
    });
    expect((await call(acct.key)).status).toBe(429);
  });
});

describe('monthly caps', () => {
  it('a monthly cap holds across a day boundary and admits again on the 1st of the next month', async () => {
    clock.set(Date.UTC(2031, 2, 30, 23, 59, 30));
    const acct = await gw.account({ balance: 1_000_000, key: { monthly_micro_usd: 2 * COST } });
    expect((await call(acct.key)).status).toBe(200);
    expect((await call(acct.key)).status).toBe(200);
    const refused = await call(acct.key);
    expect(refused.status).toBe(429);
    expect(errorOf(refused).message).toContain('monthly');
    const wait = retryAfter(refused);
    expect(Math.abs(wait - (86_400 + 30))).toBeLessThanOrEqual(1);

    clock.advance(60_000); // March 31st: a new day, the same month
    expect(new Date(clock.now()).toISOString()).toMatch(/^2031-03-31T00:00:/);
    const stillRefused = await call(acct.key);
    expect(stillRefused.status).toBe(429);
    const wait2 = retryAfter(stillRefused);
    clock.advance((wait2 - 1) * 1000);
    expect((await call(acct.key)).status).toBe(429);
    clock.advance(1000);
    expect(new Date(clock.now()).toISOString()).toMatch(/^2031-04-01T00:00:0/);
    expect((await call(acct.key)).status).toBe(200);

    const view = await keyUsage(gw, acct.key);
    expect(view.json.quota).toMatchObject({
      monthly_micro_usd: 2 * COST,
      used_monthly_micro_usd: COST,
      remaining_monthly_micro_usd: COST,
      used_daily_micro_usd: COST,
      used_total_micro_usd: 3 * COST,
    });
  });

  it('a total cap never rolls over', async () => {
    clock.set(Date.UTC(2031, 4, 31, 23, 59, 59));
    const acct = await gw.account({ balance: 1_000_000, key: { total_micro_usd: COST } });
    expect((await call(acct.key)).status).toBe(200);
    const refused = await call(acct.key);
    expect(refused.status).toBe(429);
    expect(errorOf(refused).code).toBe('quota_exceeded');
    expect(refused.headers.get('retry-after')).toBeNull();
    clock.advance(40 * 86_400_000);
    expect((await call(acct.key)).status).toBe(429);
  });
});

async function deleteSpendCounters(keyId: string) {
  const r = gw.services.redis;
  const keys = await r.keys(`${gw.env.REDIS_PREFIX}key:{${keyId}}:spent*`);
  expect(keys.length).toBeGreaterThan(0);
  await r.del(...keys);
}
