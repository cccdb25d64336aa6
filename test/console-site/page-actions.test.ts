import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../console/helpers.js';
import { chatRequest, postChat } from '../support/http.js';
import { drained } from '../support/money.js';
import { signIn, startSiteHarness, watchProblems, type SiteHarness } from './site.js';

// The actions of the Keys, Routing, Assets, Logs, Usage, Profile and Dashboard pages that the
// other browser tests leave out, in Chromium against the real gateway. One account, one page: 51
// calls (two keys, tags, a cached answer) give the logs a second page and the reports their groups.
let h: SiteHarness;
let page: Page;
let problems: string[];
let account: Awaited<ReturnType<SiteHarness['sec']['gw']['account']>>;
/** The account's session token (a sign-in without Origin), for fixtures and checks through the console API. */
let token: string;
/** How the Logs page's Key filter names the second key: `second key (sk-…1234)`. */
let secondKeyLabel: string;

const CACHED = chatRequest('gpt-sim', 'the same question twice', { max_tokens: 3 });
const cachedCall = () => postChat(h.sec.gw.url, account.key, CACHED, { 'x-service-cache-ttl': '600' });

beforeAll(async () => {
  h = await startSiteHarness();
  account = await h.sec.gw.account({ balance: 50_000_000, key: { name: 'main key', tags: ['alpha'] } });
  const signedIn = await api(h.sec.gw, 'POST', '/auth/login', {
    body: { identifier: account.email, password: 'password123' },
  });
  token = signedIn.json.data.token;
  const created = await api(h.sec.gw, 'POST', '/keys', { token, body: { name: 'second key' } });
  const second = created.json.data.key as string;
  secondKeyLabel = `second key (${created.json.data.prefix}…${created.json.data.last4})`;
  // 47 + 2 calls, and one question asked twice with the cache on: a miss, then a hit.
  const calls = [
    ...Array.from(
      { length: 47 },
      (_, i) => () => postChat(h.sec.gw.url, account.key, chatRequest('gpt-sim', `call ${i}`, { max_tokens: 3 })),
    ),
    ...[1, 2].map(
      (i) => () =>
        postChat(h.sec.gw.url, second, chatRequest('free-sim', `free ${i}`, { max_tokens: 3 }), {
          'x-service-tags': 'beta',
        }),
    ),
  ];
  for (let i = 0; i < calls.length; i += 8)
    for (const res of await Promise.all(calls.slice(i, i + 8).map((call) => call()))) expect(res.status).toBe(200);
  expect((await cachedCall()).headers.get('x-service-cache')).toBe('MISS');
  await drained(h.sec.gw);
  expect((await cachedCall()).headers.get('x-service-cache')).toBe('HIT');
  await drained(h.sec.gw);
  page = await (await h.browser.newContext()).newPage();
  problems = watchProblems(page);
  await signIn(page, h.site, account.email);
});
afterAll(async () => {
  await h?.close();
});

const nav = (name: string) => page.getByRole('link', { name, exact: true }).click();
const rows = () => page.locator('tbody tr').count();

describe('console site: page actions', { timeout: 120_000 }, () => {
  it('Keys: creates a key with a group, expiry, TPM, concurrency, asset access, usage access and a default preset', async () => {
    expect(
      (await api(h.sec.gw, 'POST', '/presets', { token, body: { slug: 'fast-first', models: ['gpt-sim'] } })).status,
    ).toBe(201);
    await nav('Keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Name').fill('full key');
    await page.getByLabel('Group').selectOption('basic');
    await page.getByLabel('Expires').fill('2031-05-06T07:08');
    await page.getByLabel('Tokens per minute').fill('12000');
    await page.getByLabel('Concurrent requests').fill('3');
    await page.getByLabel('Asset access').selectOption('all');
    await page.getByLabel(/^Usage access/).check();
    await page.getByLabel('Default preset').selectOption({ label: '@preset/fast-first' });
    await page.locator('form').getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('New key secret').waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    const row = await h.sec.gw.services.db
      .selectFrom('api_keys')
      .select([
        'group_id',
        'expires_at',
        'tpm_limit',
        'concurrency_limit',
        'asset_access',
        'usage_access',
        'default_preset',
      ])
      .where('user_id', '=', account.userId)
      .where('name', '=', 'full key')
      .executeTakeFirstOrThrow();
    // The form's time is the browser's local time.
    const expires = (await page.evaluate(`new Date('2031-05-06T07:08').toISOString()`)) as string;
    expect({ ...row, expires_at: row.expires_at?.toISOString() }).toEqual({
      group_id: 'basic',
      expires_at: expires,
      tpm_limit: 12000,
      concurrency_limit: 3,
      asset_access: 'all',
      usage_access: true,
      default_preset: 'fast-first',
    });
    expect(await page.getByRole('row', { name: /full key/ }).textContent()).toMatch(/basic.*2031/);
    // The edit form shows what was set.
    await page.getByRole('button', { name: 'Edit full key' }).click();
    expect(await page.getByLabel('Tokens per minute').inputValue()).toBe('12000');
    expect(await page.getByLabel('Default preset').inputValue()).toBe('fast-first');
    expect(await page.getByLabel(/^Usage access/).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('Routing: edits a preset (weighted) and a template (a second version, weights), then deletes both', async () => {
    await api(h.sec.gw, 'POST', '/presets', { token, body: { slug: 'edit-me', models: ['gpt-sim'] } });
    const created = await api(h.sec.gw, 'POST', '/prompt-templates', {
      token,
      body: { name: 'tone', versions: [{ label: 'A', text: 'Answer kindly.', weight: 1 }] },
    });
    expect(created.status).toBe(201);
    await nav('Routing');
    await page.getByRole('button', { name: 'Edit preset edit-me' }).click();
    const preset = page.getByRole('form', { name: 'Edit preset edit-me' });
    await preset.getByLabel('Models').fill('gpt-sim\nfree-sim');
    await preset.getByLabel('Strategy').selectOption('weighted');
    await preset.getByLabel('Weights').fill('3, 1');
    await preset.getByRole('button', { name: 'Save preset' }).click();
    await page.getByText('(weights 3, 1)').waitFor();
    const saved = (await api(h.sec.gw, 'GET', '/presets/edit-me', { token })).json.data;
    expect(saved).toMatchObject({ models: ['gpt-sim', 'free-sim'], strategy: 'weighted', weights: [3, 1] });

    await page.getByRole('button', { name: 'Edit template tone' }).click();
    const template = page.getByRole('form', { name: 'Edit template tone' });
    await template.getByRole('button', { name: 'Add a version' }).click();
    await template.getByLabel('Version 1 weight').fill('3');
    await template.getByLabel('Version 2 text').fill('Answer in {{words|ten}} words.');
    await template.getByRole('button', { name: 'Save template' }).click();
    await page.getByText('A (weight 3), B (weight 1)').waitFor();
    expect(await page.getByText('variables: words').count()).toBe(1);
    const versions = (await api(h.sec.gw, 'GET', `/prompt-templates/${created.json.data.id}`, { token })).json.data
      .versions;
    expect(versions.map((v: { label: string; weight: number }) => [v.label, v.weight])).toEqual([
      ['A', 3],
      ['B', 1],
    ]);

    await page.getByRole('button', { name: 'Delete template tone' }).click();
    await page.getByRole('dialog', { name: 'Delete tone?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText(/^No prompt templates\./).waitFor();
    await page.getByRole('button', { name: 'Delete preset edit-me' }).click();
    await page.getByRole('dialog', { name: 'Delete @preset/edit-me?' }).getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByText('@preset/edit-me').count()).toBe(0);
    expect((await api(h.sec.gw, 'GET', '/presets/edit-me', { token })).status).toBe(404);
  });

  it('Assets: deletes an upload after a confirmation', async () => {
    await nav('Assets');
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    await page.getByLabel('Upload images').setInputFiles({ name: 'gone.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('img', { name: 'gone.png' }).waitFor();
    await page.getByRole('button', { name: 'Delete gone.png' }).click();
    await page.getByRole('dialog', { name: 'Delete gone.png?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No assets yet.').waitFor();
    expect((await api(h.sec.gw, 'GET', '/assets', { token })).json.total).toBe(0);
  });

  it('Logs: pages through 51 records and filters by model, tag, key, cache and status', async () => {
    await nav('Logs');
    await page.getByText('Page 1 of 2').waitFor();
    expect(await rows()).toBe(50);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2 of 2').waitFor();
    await expect.poll(rows).toBe(1);
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.getByText('Page 1 of 2').waitFor();

    const filter = async (label: string, value: string, select = false) => {
      const field = page.getByLabel(label, { exact: true });
      await (select ? field.selectOption(value) : field.fill(value));
      await page.getByRole('button', { name: 'Filter' }).click();
    };
    await filter('Model', 'free-sim');
    await expect.poll(rows).toBe(2);
    expect(await page.getByRole('navigation', { name: 'Pages' }).count()).toBe(0); // one page: no pager
    await filter('Model', '');
    await filter('Tag', 'beta');
    await expect.poll(rows).toBe(2);
    await filter('Tag', '');
    await page.getByLabel('Key', { exact: true }).selectOption({ label: secondKeyLabel });
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(rows).toBe(2);
    await filter('Key', '', true);
    await filter('Cache', 'true', true);
    await expect.poll(rows).toBe(1);
    expect(await page.locator('tbody tr').getByText('hit', { exact: true }).count()).toBe(1);
    await filter('Cache', '', true);
    await filter('Status', '404');
    await page.getByText('No request records match.').waitFor();
  });

  it('Usage: groups by tag, key and day; a range over 93 days is refused next to its field', async () => {
    await nav('Usage');
    const report = async (by: string) => {
      await page.getByLabel('Group by').selectOption(by);
      await page.getByRole('button', { name: 'Show report' }).click();
    };
    await report('tag');
    await page.getByRole('rowheader', { name: 'beta' }).waitFor();
    expect(await page.getByRole('rowheader', { name: 'alpha' }).count()).toBe(1);
    await report('key');
    await page.getByRole('rowheader', { name: /^second key \(sk-/ }).waitFor();
    expect(await page.getByRole('rowheader', { name: /^main key \(sk-/ }).count()).toBe(1);
    await report('day');
    const today = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date());
    await page.getByRole('rowheader', { name: today }).waitFor();
    expect(await page.getByRole('img', { name: /Spend by day/ }).count()).toBe(1);

    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('From', { exact: true }).fill(day(93)); // 94 days with today
    await page.getByRole('button', { name: 'Show report' }).click();
    const to = page.locator('.field', { has: page.getByLabel('To', { exact: true }) });
    expect(await to.getByRole('alert').textContent()).toContain('at most 93 days');
    expect(await page.getByLabel('To', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('From', { exact: true }).fill(day(92)); // 93 days: allowed
    await page.getByRole('button', { name: 'Show report' }).click();
    await expect.poll(() => to.getByRole('alert').count()).toBe(0);
  });

  it('Profile: saves a nickname and a region (a wrong region next to its field), greeted on the dashboard', async () => {
    await nav('Profile');
    await page.getByLabel('Region').fill('ZZ');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page
      .locator('.field', { has: page.getByLabel('Region') })
      .getByRole('alert')
      .waitFor();
    await page.getByLabel('Nickname').fill('Ada');
    await page.getByLabel('Region').fill('de');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    const saved = await h.sec.gw.services.db
      .selectFrom('users')
      .select(['nickname', 'region'])
      .where('id', '=', account.userId)
      .executeTakeFirstOrThrow();
    expect(saved).toEqual({ nickname: 'Ada', region: 'DE' });
    await nav('Dashboard');
    await page.getByRole('heading', { name: 'Hello, Ada' }).waitFor();
  });

  it("Dashboard: this month's cache hit ratio; the response cache purged after a confirmation", async () => {
    await nav('Dashboard');
    const ratio = page.locator('.stat', { has: page.getByRole('heading', { name: 'Cache hit ratio' }) });
    const expected = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 }).format(1 / 51);
    await ratio.getByText(expected, { exact: true }).waitFor();
    await ratio.getByRole('button', { name: 'Purge response cache' }).click();
    const dialog = page.getByRole('dialog', { name: 'Purge the response cache?' });
    await dialog.getByRole('button', { name: 'Purge cache' }).click();
    await ratio.getByRole('status').getByText('Purged 1 cached answer.').waitFor();
    expect(await dialog.count()).toBe(0);
    // Gone: the same question is a miss again.
    expect((await cachedCall()).headers.get('x-service-cache')).toBe('MISS');
    expect(problems).toEqual([]);
  });
});
