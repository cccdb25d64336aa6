import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatRequest, postChat } from '../support/http.js';
import { drained } from '../support/money.js';
import { startSiteHarness, seriousViolations, signIn, watchProblems, type SiteHarness } from './site.js';

// The key's whole life through the console site in Chromium: created with its settings, the
// secret shown once and used on the gateway, the call seen in usage and logs, disabled → 403,
// enabled → 200, revoked → 401.
let h: SiteHarness;

beforeAll(async () => {
  h = await startSiteHarness();
});
afterAll(async () => {
  await h?.close();
});

// A loaded 2-core machine can take tens of seconds over a whole flow: give it room.
describe('console site: keys and usage', { timeout: 120_000 }, () => {
  it('creates a key, calls the gateway with it, sees the call in usage and logs, disables and enables it, revokes it and gets 401', async () => {
    const { email } = await h.sec.gw.account({ balance: 10_000_000 });
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    await signIn(page, h.site, email);

    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Name').fill('browser key');
    await page.getByLabel('Requests per minute').fill('600');
    await page.getByLabel('Daily cap (USD)').fill('2.5');
    await page.getByLabel('Tags').fill('web, test');
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('form').getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByLabel('New key secret').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    expect(await seriousViolations(page)).toEqual([]);
    expect(page.url()).not.toContain(secret);
    expect(await page.evaluate('JSON.stringify(localStorage) + JSON.stringify(sessionStorage)')).toBe('{}{}');

    // The key works on the gateway with the settings given in the form.
    const ok = await postChat(
      h.sec.gw.url,
      secret,
      chatRequest('gpt-sim', 'hello from the console test', { max_tokens: 3 }),
    );
    expect(ok.status).toBe(200);
    await drained(h.sec.gw);

    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByLabel('New key secret').count()).toBe(0); // gone from the page
    const row = page.getByRole('row', { name: /browser key/ });
    expect(await row.textContent()).toContain('$2.50/day');

    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await page.getByLabel('Group by').selectOption('model');
    await page.getByRole('button', { name: 'Show report' }).click();
    await page.getByRole('rowheader', { name: 'gpt-sim' }).waitFor();
    expect(await page.getByRole('img', { name: /Spend by model/ }).count()).toBe(1);
    const csv = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
    expect(csv).toContain('format=csv');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    await page.getByRole('cell', { name: 'gpt-sim' }).first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // Disabled (after a confirmation) the key is refused with 403; enabled, it works again.
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('button', { name: 'Disable browser key' }).click();
    const disableDialog = page.getByRole('dialog', { name: 'Disable this key?' });
    expect(await seriousViolations(page)).toEqual([]);
    await disableDialog.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable browser key' }).waitFor();
    const call = (text: string) => postChat(h.sec.gw.url, secret, chatRequest('gpt-sim', text, { max_tokens: 3 }));
    await expect.poll(async () => (await call('while disabled')).status, { timeout: 2_000 }).toBe(403);
    expect((await call('while disabled')).text).toContain('key_disabled');
    await page.getByRole('button', { name: 'Enable browser key' }).click();
    await page.getByRole('button', { name: 'Disable browser key' }).waitFor();
    await expect.poll(async () => (await call('enabled again')).status, { timeout: 2_000 }).toBe(200);
    await drained(h.sec.gw);

    await page.getByRole('button', { name: /^Revoke browser key/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await page
      .getByRole('row', { name: /browser key/ })
      .getByText('revoked')
      .waitFor();

    const refused = await postChat(h.sec.gw.url, secret, chatRequest('gpt-sim', 'after revoke', { max_tokens: 3 }));
    expect(refused.status).toBe(401);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('sets, changes and removes a key budget in the create and edit forms', async () => {
    const { email, userId } = await h.sec.gw.account();
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    await signIn(page, h.site, email);
    const budgetOf = async () =>
      await h.sec.gw.services.db
        .selectFrom('api_keys')
        .select(['budget_micro_usd', 'budget_period', 'budget_soft_percent'])
        .where('user_id', '=', userId)
        .where('name', '=', 'budget key')
        .executeTakeFirstOrThrow();

    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Name').fill('budget key');
    await page.getByLabel('Budget (USD)', { exact: true }).fill('1.25');
    await page.getByLabel('Budget period').selectOption('week');
    await page.getByLabel('Warning at (% of budget)').fill('150');
    const create = page.locator('form').getByRole('button', { name: 'Create key' });
    await create.click();
    // Checked in the form, next to its field, before any request.
    expect(
      await page
        .locator('.field', { has: page.getByLabel('Warning at (% of budget)') })
        .getByRole('alert')
        .textContent(),
    ).toContain('1 to 100');
    await page.getByLabel('Warning at (% of budget)').fill('80');
    expect(await seriousViolations(page)).toEqual([]);
    await create.click();
    await page.getByLabel('New key secret').waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByRole('row', { name: /budget key/ }).textContent()).toContain('budget $1.25/week');
    expect(await budgetOf()).toEqual({ budget_micro_usd: 1_250_000, budget_period: 'week', budget_soft_percent: 80 });

    // Edited: the form shows the budget as set; a new period and no warning replace it whole.
    await page.getByRole('button', { name: 'Edit budget key' }).click();
    expect(await page.getByLabel('Budget (USD)', { exact: true }).inputValue()).toBe('1.25');
    expect(await page.getByLabel('Budget period').inputValue()).toBe('week');
    expect(await page.getByLabel('Warning at (% of budget)').inputValue()).toBe('80');
    await page.getByLabel('Budget (USD)', { exact: true }).fill('3');
    await page.getByLabel('Budget period').selectOption('day');
    await page.getByLabel('Warning at (% of budget)').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page
      .getByRole('row', { name: /budget key/ })
      .getByText('budget $3.00/day')
      .waitFor();
    expect(await budgetOf()).toEqual({ budget_micro_usd: 3_000_000, budget_period: 'day', budget_soft_percent: null });

    // Emptied, the budget is removed.
    await page.getByRole('button', { name: 'Edit budget key' }).click();
    await page.getByLabel('Budget (USD)', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await budgetOf()).budget_micro_usd, { timeout: 10_000 }).toBeNull();
    await expect
      .poll(() => page.getByRole('row', { name: /budget key/ }).textContent(), { timeout: 10_000 })
      .not.toContain('budget $');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows an API error next to the field it concerns', async () => {
    const { email } = await h.sec.gw.account();
    const page = await h.browser.newPage();
    await signIn(page, h.site, email);
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('IP allowlist').fill('not-an-address');
    await page.locator('form').getByRole('button', { name: 'Create key' }).click();
    await page.locator('textarea[aria-invalid=true]').waitFor();
    expect(
      await page
        .locator('.field', { has: page.getByLabel('IP allowlist') })
        .getByRole('alert')
        .textContent(),
    ).toContain('not-an-address');
    await page.close();
  });

  it('creates a routing preset and a prompt template bound to a key, binds and unbinds it from the key form; ledger and profile pages pass axe', async () => {
    const { email, userId } = await h.sec.gw.account({ balance: 3_000_000, key: { name: 'bound key' } });
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    await signIn(page, h.site, email);

    await page.getByRole('link', { name: 'Routing', exact: true }).click();
    await page.getByRole('button', { name: 'New preset' }).click();
    const preset = page.getByRole('form', { name: 'New preset' });
    await preset.getByLabel('Slug').fill('cheap-first');
    await preset.getByLabel('Models').fill('free-sim\ngpt-sim');
    await preset.getByRole('button', { name: 'Create preset' }).click();
    await page.getByText('@preset/cheap-first').waitFor();

    await page.getByRole('button', { name: 'New template' }).click();
    const template = page.getByRole('form', { name: 'New prompt template' });
    await template.getByLabel('Template name').fill('tone');
    await template.getByLabel('Version 1 text').fill('Answer as {{persona|a pirate}}.');
    await template.getByLabel(/bound key/).check();
    await template.getByRole('button', { name: 'Create template' }).click();
    await page.getByText('variables: persona').waitFor();
    expect(await page.getByText('1 key').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    // The key form shows and sets the same binding: a new key bound at creation, the old one unbound.
    const boundKeys = async () =>
      (
        await h.sec.gw.services.db
          .selectFrom('prompt_template_bindings as b')
          .innerJoin('api_keys as k', 'k.id', 'b.api_key_id')
          .select('k.name')
          .where('k.user_id', '=', userId)
          .orderBy('k.name')
          .execute()
      ).map((r) => r.name);
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('button', { name: 'Edit bound key' }).click();
    const templateField = page.getByLabel('Prompt template');
    await expect.poll(() => templateField.locator('option:checked').textContent()).toBe('tone');
    await templateField.selectOption({ label: 'None' });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('button', { name: 'Create key' }).waitFor();
    await expect.poll(boundKeys, { timeout: 10_000 }).toEqual([]);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Name').fill('templated key');
    await page.getByLabel('Prompt template').selectOption({ label: 'tone' });
    await page.locator('form').getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('New key secret').waitFor();
    expect(await boundKeys()).toEqual(['templated key']);
    await page.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('link', { name: 'Ledger', exact: true }).click();
    await page.getByRole('cell', { name: '$3.00' }).first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('link', { name: 'Profile', exact: true }).click();
    await page.getByLabel('Locale').fill('de-DE');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    // The locale formats money from now on: 3,00 $ in German.
    await page.getByRole('link', { name: 'Ledger', exact: true }).click();
    await page
      .getByRole('cell', { name: /3,00\s\$/ })
      .first()
      .waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });

  it('uploads an image asset with progress and shows it as a thumbnail; starts a dataset export', async () => {
    const { email } = await h.sec.gw.account();
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    await signIn(page, h.site, email);
    await page.getByRole('link', { name: 'Assets', exact: true }).click();
    // A 1×1 PNG.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    await page.getByLabel('Upload images').setInputFiles({ name: 'pixel.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('img', { name: 'pixel.png' }).waitFor();
    expect(await page.locator('.thumbs code', { hasText: /^asset:\/\// }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('link', { name: 'Datasets', exact: true }).click();
    await page.getByRole('button', { name: 'Start export' }).click();
    await page
      .getByText(/^(queued|running)…$|^succeeded$/)
      .first()
      .waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
