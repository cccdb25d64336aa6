import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUILT_SITE,
  startSiteHarness,
  seriousViolations,
  signIn,
  watchApiAnswers,
  watchProblems,
  type SiteHarness,
} from './site.js';

// The console site in Chromium against a real gateway and SMTP server: sign-in by password, the
// two-step code read from the mail, the Security page that turns it on, axe-core on each page.
let h: SiteHarness;

beforeAll(async () => {
  h = await startSiteHarness({ captchaTestToken: 'captcha-test-token-for-the-site' });
});
afterAll(async () => {
  await h?.close();
});

// A loaded 2-core machine can take tens of seconds over a whole flow: give it room.
describe('console site: sign-in', { timeout: 120_000 }, () => {
  it('serves the app under a strict CSP, with its runtime setting, and forwards /api/v1', async () => {
    const res = await fetch(h.site.url);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const setting = {
      api_base: '',
      gateway_url: h.sec.gw.url,
      captcha: { provider: 'test', token: 'captcha-test-token-for-the-site' },
    };
    expect(await (await fetch(`${h.site.url}/config.json`)).json()).toEqual(setting);
    // The same setting in the page itself, in place of the preload: no round trip before the API's;
    // a document asked for without a session cookie also says the page is signed out.
    const inlineOf = (page: string) =>
      JSON.parse(
        (/<meta name="console-config" content="([^"]*)"/.exec(page)?.[1] ?? '')
          .replace(/&quot;/g, '"')
          .replace(/&amp;/g, '&'),
      );
    expect(inlineOf(html)).toEqual({ ...setting, signed_out: true });
    expect(html).not.toContain('/config.json');
    const withCookie = await fetch(`${h.site.url}/keys`, { headers: { cookie: 'theme=dark; gw_session=gws_stale' } });
    expect(inlineOf(await withCookie.text())).toEqual(setting);
    expect((await fetch(`${h.site.url}/.vite/manifest.json`)).status).toBe(404);
    const me = await fetch(`${h.site.url}/api/v1/auth/me`);
    expect(me.status).toBe(401);
    expect(((await me.json()) as { error_code: string }).error_code).toBeTruthy();
    // Nothing outside the built site.
    expect((await fetch(`${h.site.url}/assets/%2e%2e/%2e%2e/package.json`)).status).toBe(404);
  });

  it('reads config.json where a static host serves the document as built', async () => {
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    const built = await readFile(path.join(BUILT_SITE, 'index.html'), 'utf8');
    const csp = (await fetch(h.site.url)).headers.get('content-security-policy')!;
    await page.route(`${h.site.url}/`, (route) =>
      route.fulfill({ body: built, contentType: 'text/html', headers: { 'content-security-policy': csp } }),
    );
    const settings = page.waitForRequest(`${h.site.url}/config.json`);
    await page.goto(h.site.url);
    await settings;
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });

  it('signs in with a password; a wrong one is shown next to the Password field', async () => {
    const { email } = await h.sec.gw.account();
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    const answers = watchApiAnswers(page, h.site.url);
    // Before the form: neither the setting (it is in the page) nor the session (no cookie came) asked for.
    const waited: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/config.json') || r.url().endsWith('/api/v1/auth/me')) waited.push(r.url());
    });
    const started = Date.now();
    await page.goto(h.site.url);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    // Benchmark figure, not an assertion: navigation start to an interactive sign-in form.
    const interactive = (await page.evaluate('performance.now()')) as number;
    console.log(
      `sign-in page interactive after ${interactive.toFixed(0)} ms (navigation start), ${Date.now() - started} ms wall`,
    );
    expect(await seriousViolations(page)).toEqual([]);
    expect(waited).toEqual([]);

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('input[name=password][aria-invalid=true]').waitFor();
    // The message is the field's accessible description, next to it.
    const describedBy = (await page.getByLabel('Password').getAttribute('aria-describedby')) ?? '';
    expect(await page.locator(`#${describedBy.split(' ').pop()}`).textContent()).toMatch(/password/i);

    await page.getByLabel('Password').fill('password123');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    for (const name of ['Keys', 'Usage', 'Logs', 'Security'])
      expect(await page.getByRole('link', { name, exact: true }).count()).toBe(1);
    await page.getByRole('heading', { name: 'Balance' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // The session is an HttpOnly cookie: nothing of it is readable by the page's scripts, and no
    // answer the page received (the sign-in's included) carried the session token.
    expect(await page.evaluate('document.cookie')).toBe('');
    const texts = await answers.texts();
    expect(texts.some((t) => t.includes('"user":{'))).toBe(true); // the sign-in's answer was read
    expect(texts.filter((t) => /gws_|"token"/.test(t))).toEqual([]);
    expect(await page.evaluate('JSON.stringify(localStorage) + JSON.stringify(sessionStorage)')).toBe('{}{}');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });

  it('turns two-step verification on in Security, then signs in with the code read from the mail', async () => {
    const { email } = await h.sec.gw.account();
    const inbox = h.sec.inbox(email);
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    await signIn(page, h.site, email);

    await page.getByRole('link', { name: 'Security', exact: true }).click();
    await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    const twoStep = page.locator('form', { has: page.getByRole('heading', { name: 'Two-step verification' }) });
    await twoStep.getByRole('button', { name: 'Send code' }).click();
    const code = await inbox.nextCode();
    await twoStep.getByLabel('Password').fill('password123');
    await twoStep.getByLabel('Code').fill(code);
    await twoStep.getByRole('button', { name: 'Turn two-step verification on' }).click();
    await twoStep.getByText('Two-step verification is on').waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('password123');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Code').waitFor();
    const signInCode = await inbox.nextCode();
    await page.getByLabel('Code').fill(signInCode === '00000000' ? '00000001' : '00000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/code/i, { exact: false }).and(page.locator('.error')).waitFor();
    await page.getByLabel('Code').fill(signInCode);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });

  it('resets a forgotten password with the e-mailed code, then signs in with the new one', async () => {
    const { email } = await h.sec.gw.account();
    const inbox = h.sec.inbox(email);
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    await page.goto(h.site.url);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor(); // not the sign-in page's Email
    await page.getByLabel('Email').fill(email);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Send reset code' }).click();
    await page.getByLabel('Code').fill(await inbox.nextCode());
    await page.getByLabel('New password').fill('a brand new passphrase 7');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await signIn(page, h.site, email, 'a brand new passphrase 7');
    expect(problems).toEqual([]);
    await page.close();
  });
});
