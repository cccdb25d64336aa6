import { readFile } from 'node:fs/promises';
import type { Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidc, type TestOidc } from '../support/oidc.js';
import { startSiteHarness, signIn, watchApiAnswers, watchProblems, type SiteHarness } from './site.js';

// The site on http://127.0.0.1:<port>, the console API on http://localhost:<port>: two sites to
// the browser, so the SameSite=Lax session cookie never reaches the API. The pages sign in with
// short-lived bearer tokens issued for the session, kept in memory only.
let h: SiteHarness;
let oidc: TestOidc;
let apiOrigin: string;

beforeAll(async () => {
  oidc = await startOidc();
  h = await startSiteHarness({
    crossSite: true,
    env: () => ({
      OIDC_PROVIDERS: 'acme',
      OIDC_ACME_ISSUER: oidc.issuer,
      OIDC_ACME_CLIENT_ID: oidc.clientId,
      OIDC_ACME_CLIENT_SECRET: oidc.clientSecret,
      OIDC_ACME_DISPLAY_NAME: 'Acme ID',
    }),
  });
  apiOrigin = h.sec.gw.url.replace('//127.0.0.1:', '//localhost:');
  // The provider returns to the API's own origin, not the site's.
  oidc.register([`${apiOrigin}/api/v1/auth/oauth/acme/callback`]);
});
afterAll(async () => {
  await h?.close();
  await oidc?.close();
});

describe('console site on another site than its API', { timeout: 120_000 }, () => {
  it('signs in with a bearer token of the session (never the session token), works on every call, keeps nothing in cookies or storage, and signing out ends the session', async () => {
    const { email, userId } = await h.sec.gw.account({ balance: 1_000_000 });
    expect(new URL(h.site.url).hostname).toBe('127.0.0.1');
    const context = await h.browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    const apiCalls: Request[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(`${apiOrigin}/api/v1/`)) apiCalls.push(r);
    });
    const answers = watchApiAnswers(page, apiOrigin);

    await signIn(page, h.site, email);
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Name').fill('cross-site key');
    await page.locator('form').getByRole('button', { name: 'Create key' }).click();
    expect((await page.getByLabel('New key secret').textContent())?.trim()).toMatch(/^sk-/);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('row', { name: /cross-site key/ }).waitFor();

    // The CSV comes through the token too (a plain link would carry no credential).
    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await page.getByRole('button', { name: 'Show report' }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    expect((await readFile((await download.path())!, 'utf8')).split('\n')[0]).toMatch(/^group,/);

    // Every call went to the API's own origin with a gwb_ token; the long-lived session token
    // (gws_) was never answered to the page nor sent by it, and no cookie ever came along.
    const sent = await Promise.all(
      apiCalls.filter((r) => r.method() !== 'OPTIONS').map(async (r) => ({ r, headers: await r.allHeaders() })),
    );
    expect(sent.length).toBeGreaterThan(4);
    for (const { r, headers } of sent) expect(headers.cookie, r.url()).toBeUndefined();
    const withToken = sent.filter(({ headers }) => headers.authorization);
    expect(withToken.filter(({ headers }) => !/^Bearer gwb_/.test(headers.authorization!))).toEqual([]);
    expect(withToken.length).toBeGreaterThan(3);
    const signInAnswer = sent.find(({ r }) => r.url() === `${apiOrigin}/api/v1/auth/login`);
    expect(signInAnswer?.headers['x-console-session']).toBe('bearer');
    const texts = await answers.texts();
    expect(texts.filter((t) => t.includes('gws_'))).toEqual([]);
    expect(texts.filter((t) => /"token":"gwb_/.test(t))).toHaveLength(1); // the sign-in's
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate('JSON.stringify(localStorage) + JSON.stringify(sessionStorage)')).toBe('{}{}');
    expect(problems).toEqual([]);

    // The token lives in the page only: a reload asks to sign in again.
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await signIn(page, h.site, email);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const live = await h.sec.gw.services.db
      .selectFrom('console_sessions')
      .select('id')
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', new Date())
      .execute();
    // The first session was never signed out (the reload dropped its token); the second was.
    expect(live).toHaveLength(1);
    await context.close();
  });

  it("signs in with a provider: the return's single-use ticket is redeemed with the page's verifier, never a cookie", async () => {
    oidc.accounts.set('carol', `carol-${Date.now()}@example.test`);
    const context = await h.browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    const returns: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(`${h.site.url}/oauth/callback`)) returns.push(r.url());
    });
    const answers = watchApiAnswers(page, apiOrigin);
    await page.goto(h.site.url);
    await page.getByRole('link', { name: 'Continue with Acme ID' }).click();
    await page.locator('input[name=login]').fill('carol');
    await page.locator('input[name=password]').fill('any');
    await page.locator('button[type=submit]').click();
    await page.locator('button[type=submit]').click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await page.getByText(oidc.accounts.get('carol')!).count()).toBe(1);
    expect(new URL(page.url()).search).toBe('');
    expect(await page.evaluate('JSON.stringify(localStorage) + JSON.stringify(sessionStorage)')).toBe('{}{}');
    const apiCookies = await context.cookies(apiOrigin);
    expect(apiCookies.filter((c) => c.name.includes('gw_session'))).toEqual([]);
    // The hand-over answered the short token only.
    const texts = await answers.texts();
    expect(texts.filter((t) => t.includes('gws_'))).toEqual([]);
    expect(texts.some((t) => /"token":"gwb_/.test(t))).toBe(true);

    // The ticket came back in the URL; it was spent, and never worked without the verifier anyway.
    const ticket = new URL(returns[0]!).searchParams.get('ticket');
    expect(ticket).toBeTruthy();
    const replay = await fetch(`${h.sec.gw.url}/api/v1/auth/oauth/handoff`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ticket, verifier: 'x'.repeat(43) }),
    });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error_code: string }).error_code).toBe('oauth_failed');
    expect(problems.filter((p) => !p.includes(oidc.issuer))).toEqual([]);
    await context.close();

    // A return this tab did not start (a link someone else made) is refused in the page itself.
    const stranger = await h.browser.newPage();
    await stranger.goto(`${h.site.url}/oauth/callback?provider=acme&result=signed_in&ticket=${ticket}`);
    await stranger.getByText('This sign-in was started in another tab or browser').waitFor();
    expect(await stranger.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    await stranger.close();
  });

  it('links a provider from Security: the return is handed to the tab that started it, which comes back signed in', async () => {
    const { email, userId } = await h.sec.gw.account();
    oidc.accounts.set('dave', `dave-${Date.now()}@example.test`);
    const inbox = h.sec.inbox(email);
    const context = await h.browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signIn(page, h.site, email);
    await page.getByRole('link', { name: 'Security', exact: true }).click();
    await page.getByRole('button', { name: 'Link Acme ID' }).click();
    const form = page.getByRole('form', { name: 'Link Acme ID' });
    await form.getByLabel('Password').fill('password123');
    await form.getByRole('button', { name: 'Send code' }).click();
    await form.getByLabel('Code').fill(await inbox.nextCode());
    await form.getByRole('button', { name: 'Continue to Acme ID' }).click();
    await page.locator('input[name=login]').fill('dave');
    await page.locator('input[name=password]').fill('any');
    await page.locator('button[type=submit]').click();
    await page.locator('button[type=submit]').click();
    // Back on Security, signed in again (the round trip dropped the in-memory token), linked.
    await page.getByRole('button', { name: 'Unlink Acme ID' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/security');
    expect(await page.evaluate('JSON.stringify(localStorage) + JSON.stringify(sessionStorage)')).toBe('{}{}');
    const linked = await h.sec.gw.services.db
      .selectFrom('user_identities')
      .select(['provider', 'email'])
      .where('user_id', '=', userId)
      .execute();
    expect(linked).toEqual([{ provider: 'acme', email: oidc.accounts.get('dave') }]);
    expect(problems.filter((p) => !p.includes(oidc.issuer))).toEqual([]);
    await context.close();
  });

  it('renews its token before it expires, while the page stays open', async () => {
    const { email } = await h.sec.gw.account();
    const context = await h.browser.newContext();
    // The page's own clock, moved on below; the gateway's stays real, so the tokens stay valid.
    await context.clock.install({ time: new Date() });
    const page = await context.newPage();
    const problems = watchProblems(page);
    const tokens: string[] = [];
    page.on('request', (r) => {
      const auth = r.headers().authorization;
      if (r.url().startsWith(`${apiOrigin}/api/v1/`) && auth?.startsWith('Bearer gwb_')) tokens.push(auth);
    });
    await signIn(page, h.site, email);
    // The dashboard's first calls, with the token the sign-in was traded for.
    await expect.poll(() => tokens.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const before = new Set(tokens);
    expect(before.size).toBe(1);
    const renewals = () => tokens.filter((t) => !before.has(t)).length;
    // 13½ minutes on: the renewal, due two minutes before the 15-minute token ends, has run.
    await page.clock.fastForward('13:30');
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('button', { name: 'Create key' }).waitFor();
    await expect.poll(renewals, { timeout: 10_000 }).toBeGreaterThan(0);
    // The new token works: the page is still signed in and loads its data.
    await page.getByRole('link', { name: 'Profile', exact: true }).click();
    await page.getByRole('heading', { name: 'Profile' }).waitFor();
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });
});
