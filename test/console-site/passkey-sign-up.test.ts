import type { CDPSession } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startSiteHarness,
  seriousViolations,
  signIn,
  watchApiAnswers,
  watchProblems,
  type SiteHarness,
} from './site.js';

// Sign-up with the e-mailed code, and a passkey added in Security then used to sign in, through
// Chrome's virtual authenticator (DevTools Protocol) — a real WebAuthn ceremony on the site's origin.
let h: SiteHarness;

beforeAll(async () => {
  h = await startSiteHarness();
});
afterAll(async () => {
  await h?.close();
});

async function virtualAuthenticator(cdp: CDPSession): Promise<void> {
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

// A loaded 2-core machine can take tens of seconds over a whole flow: give it room.
describe('console site: sign-up and passkeys', { timeout: 120_000 }, () => {
  it('signs up with the code e-mailed to the address, and lands signed in', async () => {
    const email = `new-${Date.now()}@example.test`;
    const inbox = h.sec.inbox(email);
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    const answers = watchApiAnswers(page, h.site.url);
    await page.goto(h.site.url);
    await page.getByRole('link', { name: 'Create an account' }).click();
    // The sign-in page stays until the sign-up page's code arrives: both have an Email field.
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a long enough passphrase 42');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByLabel('Code').waitFor();
    await page.getByLabel('Code').fill(await inbox.nextCode());
    await page.getByRole('button', { name: 'Confirm and sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByRole('heading', { name: 'Balance' }).waitFor();
    // Signed in by the HttpOnly cookie alone: the confirmation answered no session token.
    expect((await answers.texts()).filter((t) => /gws_|"token"/.test(t))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('adds a passkey in Security and signs in with it, no password or code', async () => {
    const { email } = await h.sec.gw.account();
    const inbox = h.sec.inbox(email);
    const context = await h.browser.newContext();
    const page = await context.newPage();
    await virtualAuthenticator(await context.newCDPSession(page));
    const problems = watchProblems(page);
    await signIn(page, h.site, email);

    await page.getByRole('link', { name: 'Security', exact: true }).click();
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const form = page.getByRole('form', { name: 'Add a passkey' });
    await form.getByLabel('Passkey name').fill('test laptop');
    await form.getByLabel('Password').fill('password123');
    await form.getByRole('button', { name: 'Send code' }).click();
    await form.getByLabel('Code').fill(await inbox.nextCode());
    await form.getByRole('button', { name: 'Create passkey' }).click();
    await page.getByText('test laptop').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Sign out' }).click();
    const answers = watchApiAnswers(page, h.site.url);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect((await answers.texts()).filter((t) => /gws_|"token"/.test(t))).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
