import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepOpCounts } from '../../bench/lib/redis-trace.js';
import { BUDGET_NOTICE_SUBJECT } from '../../shared/keys/budget-notice.js';
import type { BudgetSetting } from '../../shared/keys/budget.js';
import { updateKey } from '../../shared/keys/manage-keys.js';
import { STEP } from '../../shared/limits/scripts.js';
import { startTaskWorkers, type TaskWorkers } from '../../workers/task-workers.js';
import { testCatalog } from '../support/catalog.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat, type RawResponse, sleep, waitUntil } from '../support/http.js';
import { controlClock, errorOf, keyUsage, postJson } from '../support/limits.js';
import { drained, usageRecords } from '../support/money.js';
import { monitorRedis } from '../support/redis-monitor.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';

// Key budgets (docs/reference/limits.md#budgets) through a running gateway, on real Postgres and
// Redis. flat-sim prices output only (1 micro-USD a token) and the simulator answers exactly
// max_tokens, so a call with max_tokens COST reserves and costs exactly COST.
const COST = 100;
const clock = controlClock();
let gw: TestGateway;
let smtp: TestSmtp;
let workers: TaskWorkers;

beforeAll(async () => {
  smtp = await startSmtp();
  gw = await startTestGateway({
    clock,
    sim: { defaults: { naturalLength: false } },
    env: { SMTP_URL: smtp.url, MAINTENANCE_EVERY_MS: '200' },
    catalog: (url) => {
      const base = testCatalog(url);
      const flat = {
        id: 'flat-sim',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'sim', upstream_model: 'sim-model' }],
        pricing: { input_per_mtok: 0, output_per_mtok: 1_000_000 },
        max_output_tokens: 1000,
      };
      return { ...base, models: [...base.models, flat] };
    },
  });
  // The soft-threshold notice comes from the maintenance sweep and leaves through the mail job;
  // private chat calls run as jobs.
  workers = startTaskWorkers(gw.services, {
    queues: 'mail,maintenance,private-chat',
    concurrency: '',
    maintenanceEveryMs: 200,
    staleAfterMs: 600_000,
    graceMs: 1_000,
  });
});
afterAll(async () => {
  await workers?.close();
  await gw?.close();
  await smtp?.close();
});

let n = 0;
const call = (key: string) => postChat(gw.url, key, chatRequest('flat-sim', `call ${++n}`, { max_tokens: COST }));
const withBudget = (budget: BudgetSetting, extra: Record<string, unknown> = {}) =>
  gw.account({ balance: 100_000_000, key: { budget, ...extra } });

function expectBudgetRefusal(res: RawResponse, words: RegExp) {
  expect(res.status, res.text).toBe(402);
  const err = errorOf(res);
  expect(err).toMatchObject({ code: 'budget_exceeded', type: 'insufficient_quota' });
  expect(err.message).toMatch(words);
}

async function charged(userId: string): Promise<number> {
  await drained(gw);
  return (await usageRecords(gw.services.db, userId)).reduce((s, r) => s + r.charged_micro_usd, 0);
}

describe('the hard limit, per period', () => {
  // Each case: when the budget is spent, a later time still in the same period, the next period's start.
  const cases = [
    {
      // ISO weeks cross months and years: Monday 2030-12-30 to Sunday 2031-01-05 is 2031-W01.
      period: 'week',
      spend: '2030-12-31T23:59:00Z',
      same: '2031-01-01T00:00:30Z',
      next: '2031-01-06T00:00:01Z',
      resets: '2031-01-06T00:00:00.000Z',
    },
    {
      period: 'day',
      spend: '2031-01-15T23:59:00Z',
      same: '2031-01-15T23:59:50Z',
      next: '2031-01-16T00:00:01Z',
      resets: '2031-01-16T00:00:00.000Z',
    },
    {
      period: 'week',
      spend: '2031-01-18T23:59:00Z', // a Saturday; the Sunday after is the same week
      same: '2031-01-19T00:00:30Z',
      next: '2031-01-20T00:00:01Z',
      resets: '2031-01-20T00:00:00.000Z',
    },
    {
      period: 'month',
      spend: '2031-01-31T23:59:00Z',
      same: '2031-01-31T23:59:50Z',
      next: '2031-02-01T00:00:01Z',
      resets: '2031-02-01T00:00:00.000Z',
    },
  ] as const;
  const adjective = { day: 'daily', week: 'weekly', month: 'monthly' };

  for (const c of cases) {
    it(`a ${c.period} budget refuses the call that would pass it with 402 until ${c.resets}, then admits again`, async () => {
      clock.set(Date.parse(c.spend));
      const acct = await withBudget({ limit_micro_usd: 2 * COST, period: c.period });
      expect((await call(acct.key)).status).toBe(200);
      expect((await call(acct.key)).status).toBe(200);
      const words = new RegExp(
        `^this key's ${adjective[c.period]} budget of ${2 * COST} micro-USD would be exceeded; it starts again at ${c.resets.replaceAll('.', '\\.')}`,
      );
      expectBudgetRefusal(await call(acct.key), words);

      clock.set(Date.parse(c.same));
      expectBudgetRefusal(await call(acct.key), words);

      clock.set(Date.parse(c.next));
      expect((await call(acct.key)).status).toBe(200);
      const view = await keyUsage(gw, acct.key);
      expect(view.json.budget).toMatchObject({ used_micro_usd: COST, period_start: c.resets });
      expect(await charged(acct.userId)).toBe(3 * COST);
    });
  }

  it('a total budget never starts again; raising it admits more', async () => {
    clock.set(Date.parse('2031-02-10T12:00:00Z'));
    const acct = await withBudget({ limit_micro_usd: 2 * COST, period: 'total' });
    expect((await call(acct.key)).status).toBe(200);
    expect((await call(acct.key)).status).toBe(200);
    const refused = await call(acct.key);
    expectBudgetRefusal(refused, new RegExp(`^this key's total budget of ${2 * COST} micro-USD would be exceeded;`));
    expect(errorOf(refused).message).not.toContain('starts again');
    expect(refused.headers.get('retry-after')).toBeNull();

    clock.advance(400 * 86_400_000);
    expectBudgetRefusal(await call(acct.key), /total budget/);
    const admin = { db: gw.services.db, redis: gw.services.redis, channel: gw.services.redisKeys.keyInvalidation };
    await updateKey(admin, acct.userId, acct.keyId, { budget: { limit_micro_usd: 3 * COST, period: 'total' } });
    await waitUntil(async () => (await gw.services.keyCache.lookup(acct.key))?.budget?.limit === 3 * COST, 2_000, 10);
    expect((await call(acct.key)).status).toBe(200);
    expectBudgetRefusal(await call(acct.key), /total budget of 300 micro-USD/);
    expect(await charged(acct.userId)).toBe(3 * COST);
  });

  it('spend is rebuilt from Postgres when Redis lost the counters (or kept them without weeks): the week still counts what it spent', async () => {
    clock.set(Date.parse('2031-02-19T12:00:00Z')); // a Wednesday
    const acct = await withBudget({ limit_micro_usd: 3 * COST, period: 'week' });
    expect((await call(acct.key)).status).toBe(200);
    clock.set(Date.parse('2031-02-20T12:00:00Z'));
    expect((await call(acct.key)).status).toBe(200);
    await drained(gw);
    const r = gw.services.redis;
    const counters = await r.keys(`${gw.env.REDIS_PREFIX}key:{${acct.keyId}}:spent*`);
    expect(counters.length).toBeGreaterThan(0);
    await r.del(...counters);
    // The total as a release without week counters kept it: superseded, and dropped by the rebuild.
    const legacyTotal = `${gw.env.REDIS_PREFIX}key:{${acct.keyId}}:spent`;
    await r.set(legacyTotal, String(2 * COST));
    expect((await call(acct.key)).status).toBe(200);
    expect(await r.exists(legacyTotal)).toBe(0);
    expectBudgetRefusal(await call(acct.key), /weekly budget/);
    expect((await keyUsage(gw, acct.key)).json.budget.used_micro_usd).toBe(3 * COST);
  });
});

describe('concurrent calls at the edge', () => {
  it('a budget of exactly 30 calls: of 200 concurrent calls 30 are served, 170 answer 402, nothing overshoots', async () => {
    clock.set(Date.parse('2031-03-01T12:00:00Z'));
    const acct = await withBudget({ limit_micro_usd: 30 * COST, period: 'week' });
    const results = await Promise.all(Array.from({ length: 200 }, () => call(acct.key)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(30);
    for (const r of results.filter((x) => x.status !== 200)) expectBudgetRefusal(r, /weekly budget/);
    expect(await charged(acct.userId)).toBe(30 * COST);
    // Every reservation was settled or given back: nothing is held against the budget any more.
    expect(Number(await gw.services.redis.get(`${gw.env.REDIS_PREFIX}key:{${acct.keyId}}:reserved`))).toBe(0);
    expect((await keyUsage(gw, acct.key)).json.budget).toMatchObject({
      used_micro_usd: 30 * COST,
      remaining_micro_usd: 0,
    });
  });

  it('calls admitted from grants hold the budget too: never past it, and it can be spent to the last call', async () => {
    clock.set(Date.parse('2031-03-02T12:00:00Z'));
    const limit = 300;
    // rpm_limit bounds a grant to 50 calls (1/8 of it): a grant (4 times its size must fit) is
    // then taken while the budget has room, and refused near it, where each call is decided in Redis.
    const acct = await withBudget({ limit_micro_usd: limit * COST, period: 'day' }, { rpm_limit: 400 });
    const stepSha = createHash('sha1').update(STEP).digest('hex');
    let grants = 0;
    const monitor = await monitorRedis(gw.env.REDIS_URL ?? 'redis://127.0.0.1:6379', ({ args }) => {
      if (args[0]?.toLowerCase() === 'evalsha' && args[1] === stepSha && args.some((a) => a.includes(acct.userId)))
        grants += stepOpCounts(args.slice(3)).G;
    });
    const statuses: number[] = [];
    try {
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next++ < limit + 30) {
            const res = await call(acct.key);
            if (res.status !== 200) expectBudgetRefusal(res, /daily budget/);
            statuses.push(res.status);
          }
        }),
      );
    } finally {
      monitor.stop();
    }
    expect(grants).toBeGreaterThan(0);
    const served = statuses.filter((s) => s === 200).length;
    expect(served).toBeLessThanOrEqual(limit);
    expect(await charged(acct.userId)).toBe(served * COST);
    // Idle, the grants go back; what is left of the budget is spendable to the last call.
    await waitUntil(
      async () => !(await gw.services.redis.hkeys(gw.services.redisKeys.reservations(acct.userId))).length,
      5_000,
    );
    let more = 0;
    while ((await call(acct.key)).status === 200) more++;
    expect(served + more).toBe(limit);
    expect(await charged(acct.userId)).toBe(limit * COST);
  });
});

describe('402 budget_exceeded in each protocol', () => {
  it('chat completions, Responses, Messages, generateContent and the private protocol; free models still answer', async () => {
    clock.set(Date.parse('2031-03-05T12:00:00Z'));
    const acct = await withBudget({ limit_micro_usd: 0, period: 'month' });
    expectBudgetRefusal(await call(acct.key), /monthly budget of 0 micro-USD/);
    const streamed = await postChat(gw.url, acct.key, chatRequest('flat-sim', 'hi', { max_tokens: 5, stream: true }));
    expectBudgetRefusal(streamed, /monthly budget/);
    expect((await postChat(gw.url, acct.key, chatRequest('free-sim', 'hi'))).status).toBe(200);

    const responses = await postJson(gw, '/v1/responses', acct.key, {
      model: 'flat-sim',
      input: 'hi',
      max_output_tokens: 5,
    });
    expect(responses.status).toBe(402);
    expect(responses.json.error).toMatchObject({ code: 'budget_exceeded', type: 'insufficient_quota' });

    const messages = await postJson(
      gw,
      '/v1/messages',
      undefined,
      { model: 'flat-sim', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
      { 'x-api-key': acct.key, 'anthropic-version': '2023-06-01' },
    );
    expect(messages.status).toBe(402);
    expect(messages.json).toMatchObject({
      type: 'error',
      error: { type: 'billing_error', code: 'budget_exceeded', details: { error_code: 'budget_exceeded' } },
    });

    const content = await postJson(
      gw,
      '/v1beta/models/flat-sim:generateContent',
      undefined,
      { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 5 } },
      { 'x-goog-api-key': acct.key },
    );
    expect(content.status).toBe(402);
    expect(content.json.error).toMatchObject({ code: 402, status: 'FAILED_PRECONDITION' });
    expect(content.json.error.details[0]).toMatchObject({ reason: 'budget_exceeded', domain: 'gateway' });

    const priv = await gw.account({
      balance: 100_000_000,
      key: { kind: 'private', budget: { limit_micro_usd: 0, period: 'day' } },
    });
    const server = await postJson(gw, '/server/v1/call', undefined, {
      apiKey: priv.key,
      clientRequestId: `budget-${n++}`,
      model: 'flat-sim',
      input: { messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 },
    });
    expect(server.status).toBe(402);
    expect(server.json).toMatchObject({ code: 402, error_code: 'budget_exceeded' });
    expect(server.json.message).toMatch(/daily budget of 0 micro-USD/);
    expect(await charged(acct.userId)).toBe(0);
  });
});

describe('the soft threshold', () => {
  // The bodies as read: quoted-printable soft line breaks joined.
  const noticesTo = (email: string) =>
    smtp.inbox
      .filter((m) => m.to === email && m.data.includes(`Subject: ${BUDGET_NOTICE_SUBJECT}\r\n`))
      .map((m) => m.data.replaceAll('=\r\n', ''));

  it('mails the owner once per period when the spend reaches it, and again in the next period', async () => {
    clock.set(Date.parse('2031-03-03T10:00:00Z'));
    const acct = await withBudget({ limit_micro_usd: 10 * COST, period: 'day', soft_threshold_percent: 50 });
    const silent = await withBudget({ limit_micro_usd: 2 * COST, period: 'day' }); // no threshold: no mail
    for (let i = 0; i < 4; i++) expect((await call(acct.key)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await call(silent.key)).status).toBe(200);
    await sleep(1_000); // several sweeps
    expect(noticesTo(acct.email)).toHaveLength(0);

    expect((await call(acct.key)).status).toBe(200); // 500 of 1000: the threshold
    await waitUntil(() => noticesTo(acct.email).length > 0, 10_000);
    const [mail] = noticesTo(acct.email);
    expect(mail).toContain('50% or more of its daily budget');
    expect(mail).toContain(`key:       ${acct.key.slice(0, 8)}...${acct.key.slice(-4)}`);
    expect(mail).toMatch(/spent: +\$0\.0005\r\n/);
    expect(mail).toContain('resets:    2031-03-04T00:00:00.000Z');

    for (let i = 0; i < 3; i++) expect((await call(acct.key)).status).toBe(200);
    await sleep(1_000);
    expect(noticesTo(acct.email)).toHaveLength(1);
    expect(noticesTo(silent.email)).toHaveLength(0);
    const rows = await gw.services.db
      .selectFrom('key_budget_notices')
      .selectAll()
      .where('api_key_id', '=', acct.keyId)
      .execute();
    expect(rows).toMatchObject([{ period: 'day-20310303', threshold_micro_usd: 5 * COST, spent_micro_usd: 5 * COST }]);

    clock.set(Date.parse('2031-03-04T10:00:00Z')); // a new day: a new period
    for (let i = 0; i < 4; i++) expect((await call(acct.key)).status).toBe(200);
    await sleep(600);
    expect(noticesTo(acct.email)).toHaveLength(1);
    expect((await call(acct.key)).status).toBe(200);
    await waitUntil(() => noticesTo(acct.email).length === 2, 10_000);
    await sleep(600);
    expect(noticesTo(acct.email)).toHaveLength(2);
  });
});

describe('the key usage lookup', () => {
  it('shows the budget, its period, what is used and left, and the soft threshold', async () => {
    clock.set(Date.parse('2031-03-13T08:00:00Z')); // a Thursday
    const acct = await withBudget({ limit_micro_usd: 1_000, period: 'week', soft_threshold_percent: 75 });
    for (let i = 0; i < 3; i++) expect((await call(acct.key)).status).toBe(200);
    const view = await keyUsage(gw, acct.key);
    expect(view.status).toBe(200);
    expect(view.json.budget).toEqual({
      limit_micro_usd: 1_000,
      period: 'week',
      period_start: '2031-03-10T00:00:00.000Z',
      period_end: '2031-03-17T00:00:00.000Z',
      used_micro_usd: 3 * COST,
      remaining_micro_usd: 1_000 - 3 * COST,
      soft_threshold_percent: 75,
      soft_threshold_micro_usd: 750,
    });
    const none = await gw.account({ balance: 1_000 });
    expect((await keyUsage(gw, none.key)).json.budget).toBeNull();
  });
});
