import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';
import { drained } from '../support/money.js';

// The /usage-lookup page in a real browser (see launchChromium), driven by
// keyboard only, its numbers checked against the API.
let gw: TestGateway;
let browser: Browser;

beforeAll(async () => {
  gw = await startTestGateway();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

describe('/usage-lookup in a browser', () => {
  it('shows the same numbers as the API, keeps the key out of storage and the URL, clears on a button, keyboard only', async () => {
    const { key } = await gw.account({
      balance: 10_000_000,
      key: { name: 'browser key', total_micro_usd: 5_000_000, rpm_limit: 100 },
    });
    for (const [model, text] of [
      ['gpt-sim', 'one'],
      ['gpt-sim', 'two'],
      ['free-sim', 'three'],
    ] as const) {
      expect((await postChat(gw.url, key, chatRequest(model, text, { max_tokens: 3 }))).status).toBe(200);
    }
    await drained(gw);
    const api = (await (
      await fetch(`${gw.url}/v1/key/usage`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as {
      last_30_days: {
        total: { requests: number; charged_micro_usd: number };
        models: Array<{ model: string; requests: number }>;
      };
      quota: { used_total_micro_usd: number };
    };

    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(gw.url)) foreign.push(r.url());
    });
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    await page.goto(`${gw.url}/usage-lookup`);
    await page.keyboard.press('Tab'); // to the key field
    await page.keyboard.type(key);
    await page.keyboard.press('Enter');
    await page.getByText('Usage of this key:').waitFor();

    const totalRow = page.locator('table tr', { hasText: /^Total/ });
    const cells = await totalRow.locator('td').allTextContents();
    expect(Number(cells[1])).toBe(api.last_30_days.total.requests);
    expect(cells[6]).toBe(`$${(api.last_30_days.total.charged_micro_usd / 1e6).toFixed(6)}`);
    expect(await page.locator('svg[role=img] rect').count()).toBe(api.last_30_days.models.length);
    const used = await page
      .locator('table tr', { hasText: /^total/ })
      .locator('td')
      .nth(2)
      .textContent();
    expect(used).toBe(`$${(api.quota.used_total_micro_usd / 1e6).toFixed(6)}`);
    expect(await page.locator('table tr', { hasText: 'Requests per minute' }).locator('td').nth(1).textContent()).toBe(
      '100',
    );

    // The key is nowhere but the input: not in the URL, not in storage, not in cookies.
    expect(page.url()).not.toContain(key);
    // A string so the test's own TypeScript (no DOM types) leaves it alone; it runs in the page.
    expect(await page.evaluate('[localStorage.length, sessionStorage.length, document.cookie]')).toEqual([0, 0, '']);
    expect(foreign).toEqual([]);
    expect(cspViolations).toEqual([]);

    // Clear, by keyboard: from the key field, Tab past "Look up" to "Clear".
    await page.focus('#key');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    expect(await page.inputValue('#key')).toBe('');
    expect(await page.locator('#result table').count()).toBe(0);

    // Errors in words.
    await page.keyboard.type(`sk-${'x'.repeat(48)}`);
    await page.keyboard.press('Enter');
    await page.getByText('This key is invalid, revoked or expired.').waitFor();
    await page.close();
  });
});
