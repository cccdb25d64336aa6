import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, modelsWith } from '../console/helpers.js';
import type { Inbox } from '../console/security-gateway.js';
import { SoftAuthenticator } from '../support/authenticator.js';
import { signIn, startSiteHarness, watchProblems, type SiteHarness } from './site.js';

// The Security page's actions no other browser test takes, one account in one page, each
// confirmed with the password and the code read from the real SMTP server: ending another
// session, two-step verification off, removing a passkey, unlinking a provider, changing the
// password and, last, closing the account. What they act on is set up through the console API.
let h: SiteHarness;
let page: Page;
let problems: string[];
let inbox: Inbox;
let account: Awaited<ReturnType<SiteHarness['sec']['gw']['account']>>;
/** Another session of the account (a client without Origin: it holds the session token). */
let otherSession: string;
let password = 'password123';

beforeAll(async () => {
  h = await startSiteHarness();
  account = await h.sec.gw.account();
  inbox = h.sec.inbox(account.email);
  page = await (await h.browser.newContext()).newPage();
  problems = watchProblems(page);
  await signIn(page, h.site, account.email);

  const login = await api(h.sec.gw, 'POST', '/auth/login', {
    body: { identifier: account.email, password },
    headers: { 'user-agent': 'other-client/1.0' },
  });
  otherSession = login.json.data.token;
  const confirmed = async (action: string) => {
    await api(h.sec.gw, 'POST', '/auth/sensitive-code', { token: otherSession, body: { action } });
    return { password, code: await inbox.nextCode() };
  };
  // Two-step verification on, in the row: a `two_factor` code sent now would hold the page's for the cooldown.
  await h.sec.gw.services.db
    .updateTable('users')
    .set({ two_factor_enabled: true })
    .where('id', '=', account.userId)
    .execute();
  const device = new SoftAuthenticator(h.site.url);
  const options = await api(h.sec.gw, 'POST', '/auth/passkeys/register/options', {
    token: otherSession,
    body: await confirmed('add_passkey'),
  });
  const passkey = await api(h.sec.gw, 'POST', '/auth/passkeys/register', {
    token: otherSession,
    body: {
      ceremony_id: options.json.data.ceremony_id,
      response: device.create(options.json.data.options),
      name: 'old phone',
    },
  });
  expect(passkey.status, JSON.stringify(passkey.json)).toBe(201);
  // A provider account linked earlier (linking itself runs through the provider: oidc.test.ts).
  await h.sec.gw.services.db
    .insertInto('user_identities')
    .values({ user_id: account.userId, provider: 'acme', subject: 'acme-subject-1', email: 'ada@acme.test' })
    .execute();
  await page.getByRole('link', { name: 'Security', exact: true }).click();
});
afterAll(async () => {
  await h?.close();
});

/** Fills a sensitive action's password (when asked) and the code it sends, then submits. */
async function confirm(form: Locator, submit: string, passwordLabel: string | null = 'Password') {
  if (passwordLabel) await form.getByLabel(passwordLabel, { exact: true }).fill(password);
  await form.getByRole('button', { name: 'Send code' }).click();
  await form.getByLabel('Code', { exact: true }).fill(await inbox.nextCode());
  await form.getByRole('button', { name: submit }).click();
}

describe('console site: security actions', { timeout: 120_000 }, () => {
  it('ends another session from the list', async () => {
    const other = page.getByRole('listitem').filter({ hasText: 'other-client/1.0' });
    await other.waitFor();
    expect(await page.getByRole('listitem').filter({ hasText: 'this session' }).count()).toBe(1);
    await other.getByRole('button', { name: 'End session' }).click();
    await expect.poll(() => other.count()).toBe(0);
    expect((await api(h.sec.gw, 'GET', '/auth/me', { token: otherSession })).status).toBe(401);
  });

  it('turns two-step verification off', async () => {
    const form = page.getByRole('form', { name: 'Two-step verification' });
    await form.getByText('Two-step verification is on').waitFor();
    await confirm(form, 'Turn two-step verification off');
    await form.getByText('Two-step verification is off').waitFor();
    const user = await h.sec.gw.services.db
      .selectFrom('users')
      .select('two_factor_enabled')
      .where('id', '=', account.userId)
      .executeTakeFirstOrThrow();
    expect(user.two_factor_enabled).toBe(false);
  });

  it('removes a passkey', async () => {
    await page.getByRole('button', { name: 'Remove passkey old phone' }).click();
    await confirm(page.getByRole('form', { name: 'Remove a passkey' }), 'Remove passkey');
    await page.getByText(/^No passkeys yet\./).waitFor();
    const left = await h.sec.gw.services.db
      .selectFrom('passkeys')
      .select('id')
      .where('user_id', '=', account.userId)
      .execute();
    expect(left).toEqual([]);
  });

  it('unlinks a sign-in provider', async () => {
    await page.getByRole('button', { name: 'Unlink acme' }).click();
    await confirm(page.getByRole('form', { name: 'Unlink acme' }), 'Unlink');
    await expect.poll(() => page.getByRole('button', { name: 'Unlink acme' }).count()).toBe(0);
    const linked = await h.sec.gw.services.db
      .selectFrom('user_identities')
      .select('id')
      .where('user_id', '=', account.userId)
      .execute();
    expect(linked).toEqual([]);
  });

  it('changes the password: the new one signs in, the old one no more', async () => {
    const form = page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill(password);
    await form.getByLabel('New password').fill('a fresh passphrase 2027');
    await confirm(form, 'Change password', null);
    await form.getByText('Password changed. Every other session was signed out.').waitFor();
    const signInWith = (p: string) =>
      api(h.sec.gw, 'POST', '/auth/login', { body: { identifier: account.email, password: p } });
    expect((await signInWith(password)).status).toBe(401);
    password = 'a fresh passphrase 2027';
    expect((await signInWith(password)).status).toBe(200);
    // This page's own session lives on.
    await page.getByRole('link', { name: 'Profile', exact: true }).click();
    await page.getByRole('heading', { name: 'Profile' }).waitFor();
    await page.getByRole('link', { name: 'Security', exact: true }).click();
  });

  it('closes the account: signed out, the key revoked, the e-mail no longer signs in', async () => {
    await page.getByRole('button', { name: 'Close account…' }).click();
    await confirm(page.getByRole('form', { name: 'Close account' }), 'Close my account');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect((await modelsWith(h.sec.gw, account.key)).status).toBe(401);
    const signInAgain = await api(h.sec.gw, 'POST', '/auth/login', {
      body: { identifier: account.email, password },
    });
    expect(signInAgain.status).toBe(401);
    expect(problems).toEqual([]);
  });
});
