import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { seriousViolations, watchProblems } from './site.js';

// The gateway's /docs in Chromium: Scalar from the gateway's own origin under the page's CSP,
// rendering the route list's Markdown, with nothing fetched from anywhere else.
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

describe('the API reference at /docs', { timeout: 120_000 }, () => {
  it('renders the document with Scalar: Markdown descriptions, examples, no CSP violation, nothing external, axe clean', async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    const foreign: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(gw.url) && !/^(data|blob):/.test(r.url())) foreign.push(r.url());
    });
    const res = await page.goto(`${gw.url}/docs`);
    const csp = res?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toMatch(/unsafe-eval|https?:/);

    // The introduction's Markdown: `/v1` is code, not a word between backticks.
    const intro = page.locator('code', { hasText: /^\/v1$/ }).first();
    await intro.waitFor({ timeout: 30_000 });

    // A route's description: the keys route's `key` is rendered as code.
    await page.goto(`${gw.url}/docs#tag/console-keys/POST/api/v1/keys`);
    const description = page.getByText(/Create a key; the full secret is in/).last();
    await description.waitFor({ timeout: 30_000 });
    const html = await description.evaluate((el) => (el as { innerHTML: string }).innerHTML);
    expect(html).toContain('<code>key</code>');
    expect(await description.textContent()).not.toContain('`');
    // Its request example, derived from the zod schema.
    expect(await page.getByText('"name": "production"').count()).toBeGreaterThan(0);

    expect(await seriousViolations(page)).toEqual([]);
    // Examples are addressed to this gateway.
    expect(await page.getByText(`curl ${gw.url}/api/v1/keys`).count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });

  it('is axe clean in dark mode too (it follows the system)', async () => {
    const page = await browser.newPage({ colorScheme: 'dark' });
    await page.goto(`${gw.url}/docs#tag/console-keys/POST/api/v1/keys`);
    await page
      .getByText(/Create a key; the full secret is in/)
      .last()
      .waitFor({ timeout: 30_000 });
    expect(await page.evaluate('document.body.classList.contains("dark-mode")')).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('serves the renderer from its npm package, gzipped when accepted', async () => {
    const gzipped = await fetch(`${gw.url}/docs/scalar.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(await gzipped.text()).toContain('createApiReference'); // fetch inflates it
    const start = await fetch(`${gw.url}/docs/api-reference.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(start.headers.get('content-encoding')).toBeNull();
    expect(await start.text()).toContain("url: '/openapi.json'");
  });
});
