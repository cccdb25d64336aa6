import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectFailure, userSession } from '../console/helpers.js';
import { launchChromium } from '../support/browser.js';
import { testCatalog } from '../support/catalog.js';
import { cliInProcess } from '../support/cli-in-process.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';
import { errorOf, keySeen, keyUsage } from '../support/limits.js';
import type { CliResult } from '../support/processes.js';

// Setting and reading a key's budget: the operator CLI, the console API and the usage lookup page
// (the enforcement itself: budgets.test.ts).
const COST = 100;
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
        pricing: { input_per_mtok: 0, output_per_mtok: 1_000_000 },
      };
      return { ...base, models: [...base.models, flat] };
    },
  });
});
afterAll(() => gw.close());

const call = (key: string) => postChat(gw.url, key, chatRequest('flat-sim', 'hello', { max_tokens: COST }));
const cli = (...args: string[]): Promise<CliResult> => cliInProcess(args, gw.env);
const json = (r: CliResult) => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('the CLI', () => {
  it('key:create and key:update set the budget whole; the gateway enforces each change', async () => {
    const { email } = await gw.account({ balance: 10_000_000 });
    const created = json(
      await cli(
        'key:create',
        '--email',
        email,
        '--budget-micro-usd',
        String(2 * COST),
        '--budget-period',
        'week',
        '--budget-soft-percent',
        '80',
      ),
    );
    expect(created.budget).toEqual({ limit_micro_usd: 2 * COST, period: 'week', soft_threshold_percent: 80 });
    expect((await call(created.key)).status).toBe(200);
    expect((await call(created.key)).status).toBe(200);
    const refused = await call(created.key);
    expect(refused.status).toBe(402);
    expect(errorOf(refused).code).toBe('budget_exceeded');

    const raised = json(
      await cli(
        'key:update',
        '--key-id',
        created.id,
        '--budget-micro-usd',
        String(3 * COST),
        '--budget-period',
        'week',
      ),
    );
    expect(raised.budget).toEqual({ limit_micro_usd: 3 * COST, period: 'week', soft_threshold_percent: null });
    await keySeen(gw, created.key, (k) => k.budget?.limit === 3 * COST);
    expect((await call(created.key)).status).toBe(200);
    expect((await call(created.key)).status).toBe(402);

    // Other settings change alone, the budget stays.
    const renamed = json(await cli('key:update', '--key-id', created.id, '--name', 'renamed', '--rpm', '60'));
    expect(renamed).toMatchObject({ name: 'renamed', rpm_limit: 60, budget: raised.budget });

    const removed = json(
      await cli('key:update', '--key-id', created.id, '--budget-micro-usd', 'none', '--rpm', 'none'),
    );
    expect(removed).toMatchObject({ budget: null, rpm_limit: null });
    await keySeen(gw, created.key, (k) => k.budget === null);
    expect((await call(created.key)).status).toBe(200);
  });

  it('refuses a partial or malformed budget, naming the flag or field', async () => {
    const { email, keyId } = await gw.account();
    const failures: [string[], RegExp][] = [
      [['key:create', '--email', email, '--budget-micro-usd', '100'], /--budget-period is required/],
      [['key:create', '--email', email, '--budget-period', 'day'], /the budget is set whole/],
      [['key:create', '--email', email, '--budget-micro-usd', '100', '--budget-period', 'year'], /budget\.period/],
      [
        ['key:create', '--email', email, '--budget-micro-usd', '-1', '--budget-period', 'day'],
        /budget\.limit_micro_usd/,
      ],
      [
        [
          'key:update',
          '--key-id',
          keyId,
          '--budget-micro-usd',
          '100',
          '--budget-period',
          'day',
          '--budget-soft-percent',
          '0',
        ],
        /budget\.soft_threshold_percent/,
      ],
      [['key:update', '--key-id', keyId, '--budget-micro-usd', 'none', '--budget-period', 'day'], /set whole/],
      [['key:update', '--key-id', '00000000-0000-0000-0000-000000000000', '--name', 'x'], /no key with id/],
    ];
    for (const [args, message] of failures) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
    }
  });
});

describe('the console API', () => {
  it('POST and PATCH /api/v1/keys set the budget, GET shows it, null removes it', async () => {
    const s = await userSession(gw);
    const budget = { limit_micro_usd: 2 * COST, period: 'day', soft_threshold_percent: 50 };
    const created = await api(gw, 'POST', '/keys', { token: s.token, body: { name: 'budgeted', budget } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.data.budget).toEqual(budget);

    const { id } = created.json.data;
    const monthly = { limit_micro_usd: 5 * COST, period: 'month' };
    const patched = await api(gw, 'PATCH', `/keys/${id}`, { token: s.token, body: { budget: monthly } });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect(patched.json.data.budget).toEqual({ ...monthly, soft_threshold_percent: null });
    expect((await api(gw, 'GET', `/keys/${id}`, { token: s.token })).json.data.budget).toEqual(
      patched.json.data.budget,
    );

    const other = await api(gw, 'PATCH', `/keys/${id}`, { token: s.token, body: { name: 'still budgeted' } });
    expect(other.json.data.budget).toEqual(patched.json.data.budget);
    const cleared = await api(gw, 'PATCH', `/keys/${id}`, { token: s.token, body: { budget: null } });
    expect(cleared.json.data.budget).toBeNull();
  });

  it('refuses a malformed budget with 400 naming the field', async () => {
    const s = await userSession(gw);
    const bad: [unknown, RegExp][] = [
      [{ limit_micro_usd: 100 }, /budget\.period/],
      [{ limit_micro_usd: 100, period: 'year' }, /budget\.period/],
      [{ limit_micro_usd: 1.5, period: 'day' }, /budget\.limit_micro_usd/],
      [{ limit_micro_usd: 100, period: 'day', soft_threshold_percent: 101 }, /budget\.soft_threshold_percent/],
      ['100', /budget/],
    ];
    for (const [budget, message] of bad) {
      const reply = await api(gw, 'POST', '/keys', { token: s.token, body: { budget } });
      expectFailure(reply, 400, 'invalid_request', message);
      expect(reply.json.param).toMatch(/^budget/);
    }
    // An undeclared field is refused as on every console body.
    const undeclared = { limit_micro_usd: 100, period: 'day', soft_threshold_usd: 1 };
    const reply = await api(gw, 'PATCH', `/keys/${s.keyId}`, { token: s.token, body: { budget: undeclared } });
    expectFailure(reply, 400, 'invalid_json', /budget\.soft_threshold_usd/);
    const listed = await api(gw, 'GET', '/keys', { token: s.token });
    expect(listed.json.list.map((k: { budget: unknown }) => k.budget)).toEqual([null]);
  });
});

describe('the usage lookup page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it('shows the budget as the API does', async () => {
    const acct = await gw.account({
      balance: 10_000_000,
      key: { budget: { limit_micro_usd: 1_000_000, period: 'month', soft_threshold_percent: 90 } },
    });
    expect((await call(acct.key)).status).toBe(200);
    const api = (await keyUsage(gw, acct.key)).json.budget;
    expect(api).toMatchObject({ used_micro_usd: COST, remaining_micro_usd: 1_000_000 - COST });

    const page = await browser.newPage();
    await page.goto(`${gw.url}/usage-lookup`);
    await page.locator('#key').fill(acct.key);
    await page.keyboard.press('Enter');
    await page.getByText('Usage of this key:').waitFor();
    const budgetTable = page.locator('h2:text-is("Budget") + table');
    const cell = async (label: string) =>
      (await budgetTable
        .locator('tr', { hasText: new RegExp(`^${label}`) })
        .locator('td')
        .nth(1)
        .textContent()) ?? '';
    expect(await cell('Limit')).toBe('$1.000000 per month (UTC)');
    expect(await cell('Period')).toBe(`${api.period_start} to ${api.period_end}`);
    expect(await cell('Used')).toBe('$0.000100');
    expect(await cell('Remaining')).toBe('$0.999900');
    expect(await cell('Soft threshold')).toBe('90% ($0.900000), mailed once per period');
    await page.close();
  });
});
