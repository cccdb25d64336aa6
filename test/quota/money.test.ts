import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerSum } from '../../shared/db/ledger.js';
import { updateKey } from '../../shared/keys/manage-keys.js';
import { testCatalog } from '../support/catalog.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat, type RawResponse } from '../support/http.js';
import { errorOf, keySeen, keyUsage, retryAfter } from '../support/limits.js';
import {
  drained,
  expectConsistentLedger,
  pricedMicroUsd,
  simPromptTokens,
  usageRecords,
  usersBalance,
} from '../support/money.js';

// flat-sim prices output only (1 micro-USD a token): a call with max_tokens 100 reserves exactly
// what it costs (the simulator, naturalLength off, produces exactly max_tokens), so "pays for 30 calls" is exact.
const FLAT = { input_per_mtok: 0, output_per_mtok: 1_000_000 };
const COST = 100;
const GPT_SIM = { input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 };

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    sim: { defaults: { naturalLength: false } },
    catalog: (url) => {
      const base = testCatalog(url);
      const flat = {
        id: 'flat-sim',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'sim', upstream_model: 'sim-model' }],
        pricing: FLAT,
        max_output_tokens: 1000,
      };
      return { ...base, models: [...base.models, flat] };
    },
  });
});
afterAll(() => gw.close());

const flatCall = (key: string, i: number) =>
  postChat(gw.url, key, chatRequest('flat-sim', `call ${i}`, { max_tokens: COST }));
const burst = (key: string, n = 200) => Promise.all(Array.from({ length: n }, (_, i) => flatCall(key, i)));

async function checkMoney(userId: string, funds: number) {
  await drained(gw);
  const all = await usageRecords(gw.services.db, userId);
  // Refused calls are recorded too, with their error and no charge.
  expect(all.filter((r) => r.status_code !== 200).every((r) => r.charged_micro_usd === 0)).toBe(true);
  const records = all.filter((r) => r.status_code === 200);
  const charged = records.reduce((s, r) => s + r.charged_micro_usd, 0);
  const balance = await usersBalance(gw.services.db, userId);
  expect(balance).toBeGreaterThanOrEqual(0);
  expect(await ledgerSum(gw.services.db, userId)).toBe(balance);
  expect(balance).toBe(funds - charged);
  expect((await gw.services.balances.currentBalance(userId))?.balance).toBe(balance);
  const charges = await expectConsistentLedger(gw.services.db, userId);
  expect(charges).toHaveLength(records.filter((r) => r.charged_micro_usd > 0).length);
  return { records, charged, balance };
}

function statuses(results: RawResponse[]) {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

describe('the balance under concurrency', () => {
  it('a balance that pays for exactly 30 calls: of 200 concurrent calls 30 are served and charged, 170 answer 402', async () => {
    const funds = 30 * COST;
    const acct = await gw.account({ balance: funds });
    const results = await burst(acct.key);
    expect(statuses(results)).toEqual({ 200: 30, 402: 170 });
    for (const r of results.filter((x) => x.status === 402)) expect(errorOf(r).code).toBe('insufficient_balance');
    const { records, charged, balance } = await checkMoney(acct.userId, funds);
    expect(records).toHaveLength(30);
    expect(records.every((r) => r.charged_micro_usd === COST)).toBe(true);
    expect(charged).toBe(funds);
    expect(balance).toBe(0);
  });

  it('when a reservation exceeds the actual cost: never more charged than the balance, and the ledger sums to the balance', async () => {
    const body = (i: number) => JSON.stringify(chatRequest('gpt-sim', `call number ${i}`, { max_tokens: 20 }));
    const bytes = Buffer.byteLength(body(100)); // calls 100..199 are the longest bodies
    const reservation = 2 * bytes + 8 * 20; // body bytes as input tokens at 2, max_tokens at 8 micro-USD
    const cost = pricedMicroUsd(GPT_SIM, simPromptTokens([{ role: 'user', content: 'call number 1' }]), 20);
    expect(cost).toBeLessThan(reservation);
    const funds = 30 * reservation;
    const acct = await gw.account({ balance: funds });
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => postChat(gw.url, acct.key, body(i + 100))));
    const served = results.filter((r) => r.status === 200).length;
    expect(served).toBeGreaterThanOrEqual(30);
    expect(results.every((r) => r.status === 200 || r.status === 402)).toBe(true);
    const { records, charged } = await checkMoney(acct.userId, funds);
    expect(records).toHaveLength(served);
    expect(records.every((r) => r.charged_micro_usd === cost)).toBe(true);
    expect(served).toBeLessThanOrEqual(Math.floor(funds / cost));
    expect(charged).toBeLessThanOrEqual(funds);
  });
});

describe('quota caps under concurrency', () => {
  for (const period of ['total', 'daily', 'monthly'] as const) {
    it(`${period}_micro_usd of 30 calls: of 200 concurrent calls 30 are served, the rest answer 429 quota_exceeded`, async () => {
      const funds = 1_000_000;
      const cap = 30 * COST;
      const acct = await gw.account({ balance: funds, key: { [`${period}_micro_usd`]: cap } });
      const results = await burst(acct.key);
      expect(statuses(results)).toEqual({ 200: 30, 429: 170 });
      for (const r of results.filter((x) => x.status === 429)) {
        const err = errorOf(r);
        expect(err.code).toBe('quota_exceeded');
        expect(err.message).toContain(period);
        if (period === 'total') expect(r.headers.get('retry-after')).toBeNull();
        else expect(retryAfter(r)).toBeGreaterThanOrEqual(1);
      }
      const { charged } = await checkMoney(acct.userId, funds);
      expect(charged).toBe(cap);
      const view = await keyUsage(gw, acct.key);
      expect(view.status).toBe(200);
      expect(view.json.quota[`used_${period}_micro_usd`]).toBe(cap);
      expect(view.json.quota[`remaining_${period}_micro_usd`]).toBe(0);
    });
  }

  it('every cap and the balance together: the tightest one decides', async () => {
    const funds = 100 * COST;
    const acct = await gw.account({
      balance: funds,
      key: { total_micro_usd: 40 * COST, daily_micro_usd: 35 * COST, monthly_micro_usd: 30 * COST },
    });
    const results = await burst(acct.key, 100);
    expect(statuses(results)).toEqual({ 200: 30, 429: 70 });
    for (const r of results.filter((x) => x.status === 429)) expect(errorOf(r).message).toContain('monthly');
    const { charged } = await checkMoney(acct.userId, funds);
    expect(charged).toBe(30 * COST);

    const poor = await gw.account({
      balance: 25 * COST,
      key: { total_micro_usd: 40 * COST, monthly_micro_usd: 30 * COST },
    });
    expect(statuses(await burst(poor.key, 100))).toEqual({ 200: 25, 402: 75 });
    expect((await checkMoney(poor.userId, 25 * COST)).charged).toBe(25 * COST);
  });
});

describe('the key usage view', () => {
  it('used_* and remaining_* as the spec defines them; remaining_* only where a cap is set', async () => {
    const acct = await gw.account({ balance: 1_000_000, key: { total_micro_usd: 1000, monthly_micro_usd: 250 } });
    for (let i = 0; i < 2; i++) expect((await flatCall(acct.key, i)).status).toBe(200);
    const view = await keyUsage(gw, acct.key);
    expect(view.status).toBe(200);
    expect(view.json.quota).toEqual({
      total_micro_usd: 1000,
      used_total_micro_usd: 200,
      remaining_total_micro_usd: 800,
      daily_micro_usd: null,
      used_daily_micro_usd: 200,
      monthly_micro_usd: 250,
      used_monthly_micro_usd: 200,
      remaining_monthly_micro_usd: 50,
    });
    expect(view.json.limits).toEqual({ rpm_limit: null, tpm_limit: null, concurrency_limit: null });

    // The next call needs 100 but only 50 remain this month.
    const refused = await flatCall(acct.key, 3);
    expect(refused.status).toBe(429);
    expect(errorOf(refused).code).toBe('quota_exceeded');

    // A cap lowered below what was spent: remaining is 0, never negative.
    const admin = {
      db: gw.services.db,
      redis: gw.services.redis,
      channel: gw.services.redisKeys.keyInvalidation,
      catalog: gw.services.catalog,
    };
    await updateKey(admin, acct.userId, acct.keyId, { total_micro_usd: 150, daily_micro_usd: 0 });
    await keySeen(gw, acct.key, (k) => k.quota.total === 150);
    const lowered = await keyUsage(gw, acct.key);
    expect(lowered.json.quota).toMatchObject({
      total_micro_usd: 150,
      used_total_micro_usd: 200,
      remaining_total_micro_usd: 0,
      daily_micro_usd: 0,
      remaining_daily_micro_usd: 0,
    });
  });

  it('a key without caps shows what it spent and no remaining_*', async () => {
    const acct = await gw.account({ balance: 1_000_000, key: { rpm_limit: 60, concurrency_limit: 2 } });
    expect((await flatCall(acct.key, 0)).status).toBe(200);
    // A key without caps loads its spend counters on this first view: read after the drain, as a
    // charge still queued is counted in both places for a moment ("a moment of caution", quota.ts).
    await drained(gw);
    const view = await keyUsage(gw, acct.key);
    expect(view.json.quota).toEqual({
      total_micro_usd: null,
      used_total_micro_usd: COST,
      daily_micro_usd: null,
      used_daily_micro_usd: COST,
      monthly_micro_usd: null,
      used_monthly_micro_usd: COST,
    });
    expect(view.json.limits).toEqual({ rpm_limit: 60, tpm_limit: null, concurrency_limit: 2 });
  });
});
