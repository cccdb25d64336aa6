import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidc, type TestOidc } from '../support/oidc.js';
import { startSiteHarness, seriousViolations, watchProblems, type SiteHarness } from './site.js';

// OpenID Connect sign-in from the console site, in Chromium, through the real oidc-provider's own
// login and consent pages: the provider's button, the redirects, back signed in on the site.
let h: SiteHarness;
let oidc: TestOidc;

beforeAll(async () => {
  oidc = await startOidc();
  h = await startSiteHarness({
    env: () => ({
      OIDC_PROVIDERS: 'acme',
      OIDC_ACME_ISSUER: oidc.issuer,
      OIDC_ACME_CLIENT_ID: oidc.clientId,
      OIDC_ACME_CLIENT_SECRET: oidc.clientSecret,
      OIDC_ACME_DISPLAY_NAME: 'Acme ID',
    }),
  });
  // The callback is on the site's origin: the site hands /api/v1 to the gateway.
  oidc.register([`${h.site.url}/api/v1/auth/oauth/acme/callback`]);
});
afterAll(async () => {
  await h?.close();
  await oidc?.close();
});

// A loaded 2-core machine can take tens of seconds over a whole flow: give it room.
describe('console site: OpenID Connect', { timeout: 120_000 }, () => {
  it('signs up and in with the provider button, through the provider login and consent pages', async () => {
    oidc.accounts.set('alice', `alice-${Date.now()}@example.test`);
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    await page.goto(h.site.url);
    const button = page.getByRole('link', { name: 'Continue with Acme ID' });
    await button.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await button.click();
    // oidc-provider's development pages: a login form, then a consent form.
    await page.locator('input[name=login]').fill('alice');
    await page.locator('input[name=password]').fill('any');
    await page.locator('button[type=submit]').click();
    await page.locator('button[type=submit]').click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(new URL(page.url()).origin).toBe(h.site.url);
    expect(await page.getByText(oidc.accounts.get('alice')!).count()).toBe(1);
    expect(problems.filter((p) => !p.includes(oidc.issuer))).toEqual([]);
    await page.close();
  });
});
