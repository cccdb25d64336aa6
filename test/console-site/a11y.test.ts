import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../console/helpers.js';
import { chatRequest, postChat } from '../support/http.js';
import { drained } from '../support/money.js';
import { seriousViolations, signIn, startSiteHarness, watchProblems, type SiteHarness } from './site.js';

// Every page of the console in dark mode at a phone's width (390 px): axe-core finds nothing
// serious or critical, and nothing scrolls sideways; the provider return page in light mode
// too; and a sign-in and a new key with the keyboard alone, the focus always visible.
let h: SiteHarness;
let account: Awaited<ReturnType<SiteHarness['sec']['gw']['account']>>;

beforeAll(async () => {
  h = await startSiteHarness({
    captchaTestToken: 'captcha-test-token-for-the-site',
    env: () => ({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' }),
  });
  // Something on every page: calls for the charts and tables, a preset, a template, a webhook.
  account = await h.sec.gw.account({ balance: 5_000_000, key: { name: 'phone key', tags: ['mobile'] } });
  for (const text of ['one', 'two', 'three'])
    expect((await postChat(h.sec.gw.url, account.key, chatRequest('gpt-sim', text, { max_tokens: 3 }))).status).toBe(
      200,
    );
  await drained(h.sec.gw);
  const { token } = (
    await api(h.sec.gw, 'POST', '/auth/login', { body: { identifier: account.email, password: 'password123' } })
  ).json.data;
  const made = await Promise.all([
    api(h.sec.gw, 'POST', '/presets', { token, body: { slug: 'phone-first', models: ['gpt-sim', 'free-sim'] } }),
    api(h.sec.gw, 'POST', '/prompt-templates', {
      token,
      body: { name: 'tone', versions: [{ label: 'A', text: 'Answer as {{persona|a pirate}}.', weight: 1 }] },
    }),
    api(h.sec.gw, 'POST', '/webhooks', {
      token,
      body: { url: 'http://127.0.0.1:9/hooks', events: ['video.completed'], description: 'phone receiver' },
    }),
  ]);
  for (const reply of made) expect(reply.status, JSON.stringify(reply.json)).toBe(201);
});
afterAll(async () => {
  await h?.close();
});

const SIGNED_OUT_PAGES = [
  { path: '/', heading: 'Sign in' },
  { path: '/sign-up', heading: 'Create an account' },
  { path: '/reset-password', heading: 'Reset your password' },
  {
    path: '/oauth/callback?provider=acme&result=error&error_code=access_denied&message=The+provider+refused.',
    heading: 'Signing in with acme',
  },
  { path: '/oauth/callback?provider=acme&result=mfa_required&ticket=t', heading: 'Signing in with acme' },
];
const SIGNED_IN_PAGES = [
  'Dashboard',
  'Keys',
  'Usage',
  'Logs',
  'Routing',
  'Assets',
  'Datasets',
  'Webhooks',
  'Ledger',
  'Security',
  'Profile',
];

// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** The page's whole width fits the viewport: nothing scrolls sideways (a table scrolls inside its own frame). */
const sidewaysScroll = (page: Page) =>
  page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;

/** Waits until the page has loaded what it shows (no "Loading …" status left). */
async function settled(page: Page): Promise<void> {
  await expect
    .poll(
      () =>
        page
          .getByRole('status')
          .filter({ hasText: /^Loading/ })
          .count(),
      { timeout: 15_000 },
    )
    .toBe(0);
}

describe('console site: accessibility', { timeout: 120_000 }, () => {
  it('every page passes axe in dark mode at 390 px wide, without sideways scrolling', async () => {
    const context = await h.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.emulateMedia({ colorScheme: 'dark' });
    const problems = watchProblems(page);
    const found: Record<string, string[] | number> = {};
    for (const { path, heading } of SIGNED_OUT_PAGES) {
      await page.goto(`${h.site.url}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      expect(await page.evaluate(`matchMedia('(prefers-color-scheme: dark)').matches`)).toBe(true);
      found[path] = await seriousViolations(page);
      if ((await sidewaysScroll(page)) > 0) found[`${path} scrolls sideways by`] = await sidewaysScroll(page);
    }
    await signIn(page, h.site, account.email);
    for (const name of SIGNED_IN_PAGES) {
      await page.getByRole('link', { name, exact: true }).click();
      await page.waitForURL((url) => url.pathname === (name === 'Dashboard' ? '/' : `/${name.toLowerCase()}`));
      await page.getByRole('heading', { level: 1 }).waitFor();
      if (name === 'Assets') {
        // A thumbnail in the list (the upload with its progress is assets' own test).
        await page.getByLabel('Upload images').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
        await page.getByRole('img', { name: 'dot.png' }).waitFor();
      }
      await settled(page);
      found[name] = await seriousViolations(page);
      if ((await sidewaysScroll(page)) > 0) found[`${name} scrolls sideways by`] = await sidewaysScroll(page);
    }
    expect(Object.entries(found).filter(([, v]) => typeof v === 'number' || v.length > 0)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the provider return page passes axe in light mode too', async () => {
    const page = await h.browser.newPage();
    for (const { path, heading } of SIGNED_OUT_PAGES.filter((p) => p.path.startsWith('/oauth/'))) {
      await page.goto(`${h.site.url}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      expect(await seriousViolations(page), path).toEqual([]);
    }
    await page.close();
  });

  it('signs in and creates a key with the keyboard alone, the focus visible at every step', async () => {
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    await page.goto(h.site.url);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await tabTo(page, 'Email');
    await page.keyboard.type(account.email);
    await tabTo(page, 'Password');
    await page.keyboard.type('password123');
    await tabTo(page, 'Sign in');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();

    await tabTo(page, 'Keys');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await tabTo(page, 'Create key');
    await page.keyboard.press('Space');
    await page.getByLabel('Name').waitFor();
    await tabTo(page, 'Name');
    await page.keyboard.type('keyboard key');
    // On through every setting to the form's own Create key button.
    await tabTo(page, 'Create key', 60);
    await page.keyboard.press('Space');
    expect((await page.getByLabel('New key secret').textContent())?.trim()).toMatch(/^sk-/);
    await tabTo(page, 'Done');
    await page.keyboard.press('Enter');
    await page.getByRole('row', { name: /keyboard key/ }).waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });
});

/**
 * Presses Tab until the focused element is named `name` (a control's label, else its text),
 * checking at each stop that the focus is visible: the element draws its focus ring.
 */
async function tabTo(page: Page, name: string, maxPresses = 30): Promise<void> {
  for (let i = 0; i < maxPresses; i++) {
    await page.keyboard.press('Tab');
    const focused = (await page.evaluate(`(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const style = getComputedStyle(el);
      return {
        name: ((el.labels && el.labels[0] ? el.labels[0].textContent : el.textContent) || '').trim(),
        visible: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
      };
    })()`)) as { name: string; visible: boolean } | null;
    if (!focused) continue;
    expect(focused.visible, `the focus on "${focused.name}" is not visible`).toBe(true);
    if (focused.name === name) return;
  }
  throw new Error(`${maxPresses} presses of Tab did not reach "${name}"`);
}
