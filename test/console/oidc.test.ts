import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, startOidc, type TestOidc } from '../support/oidc.js';
import { api, expectFailure, userSession, type Json } from './helpers.js';
import { startSecurityGateway, wrongCode, type SecurityGateway } from './security-gateway.js';

// Sign-in providers against a real OpenID provider (oidc-provider) on loopback, its login and
// consent pages driven through real redirects and cookies.
const CONSOLE = 'http://console.example.test';
let oidc: TestOidc;
let sg: SecurityGateway;

beforeAll(async () => {
  oidc = await startOidc();
  sg = await startSecurityGateway({
    env: {
      CONSOLE_ORIGIN: CONSOLE,
      OIDC_PROVIDERS: 'acme',
      OIDC_ACME_ISSUER: oidc.issuer,
      OIDC_ACME_CLIENT_ID: oidc.clientId,
      OIDC_ACME_CLIENT_SECRET: oidc.clientSecret,
      OIDC_ACME_DISPLAY_NAME: 'Acme ID',
    },
  });
  oidc.register([`${sg.gw.url}/api/v1/auth/oauth/acme/callback`]);
});
afterAll(async () => {
  await sg?.close();
  await oidc?.close();
});

/** A user of the provider with a fresh login and e-mail. */
function providerUser(): { login: string; email: string } {
  const login = `p-${randomBytes(4).toString('hex')}`;
  const email = `${login}@provider.example.test`;
  oidc.accounts.set(login, email);
  return { login, email };
}

const atConsole = (u: URL) => u.origin === CONSOLE;
const atCallback = (u: URL) => u.href.startsWith(`${sg.gw.url}/api/v1/auth/oauth/acme/callback`);

/** The whole provider sign-in in a fresh browser → where the gateway sent it back, and the browser. */
async function providerSignIn(login: string) {
  const browser = new Browser();
  const back = await browser.signInAtProvider(`${sg.gw.url}/api/v1/auth/oauth/acme/authorize`, login, atConsole);
  expect(back.pathname).toBe('/oauth/callback');
  return { browser, back, result: back.searchParams.get('result') };
}

/** The provider's return, fetched by a client asking for JSON → status and body. */
async function returnAsJson(startUrl: string, login: string, browser = new Browser()) {
  const callback = await browser.signInAtProvider(startUrl, login, atCallback);
  const res = await browser.request(callback.href, { headers: { accept: 'application/json' } });
  return { status: res.status, json: (await res.json()) as Json, headers: res.headers };
}

async function meWithCookie(browser: Browser) {
  const res = await fetch(`${sg.gw.url}/api/v1/auth/me`, { headers: { cookie: browser.cookieHeader(sg.gw.url) } });
  return { status: res.status, json: (await res.json()) as Json };
}

/** A browser signed in to the console as `s` (a link is finished in the browser and session that started it). */
async function consoleBrowser(s: { email: string }): Promise<Browser> {
  const browser = new Browser();
  const reply = await browser.consoleCall(`${sg.gw.url}/api/v1/auth/login`, 'POST', {
    identifier: s.email,
    password: 'password123',
  });
  expect(reply.status, JSON.stringify(reply.json)).toBe(200);
  return browser;
}

/** Starts a link in `browser` (signed in as `s`) → the provider URL to follow in that browser. */
async function linkUrl(
  s: { token: string; email: string },
  browser: Browser,
  password: string | undefined = 'password123',
) {
  const inbox = sg.inbox(s.email);
  expect(
    (await api(sg.gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'link_provider' } })).status,
  ).toBe(202);
  const reply = await browser.consoleCall(`${sg.gw.url}/api/v1/auth/oauth/acme/link`, 'POST', {
    password,
    code: await inbox.nextCode(),
  });
  expect(reply.status, JSON.stringify(reply.json)).toBe(200);
  return reply.json.data as { url: string; expires_at: string };
}

describe('OpenID Connect sign-in providers', () => {
  it('lists the configured providers', async () => {
    const reply = await api(sg.gw, 'GET', '/auth/oauth/providers');
    expect(reply.json.data).toEqual([{ name: 'acme', display_name: 'Acme ID' }]);
    expectFailure(await api(sg.gw, 'GET', '/auth/oauth/nope/authorize'), 404, 'not_found');
  });

  it('authorize redirects with PKCE (S256), state and nonce', async () => {
    const res = await fetch(`${sg.gw.url}/api/v1/auth/oauth/acme/authorize`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin).toBe(oidc.issuer);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to.searchParams.get('state')).toBeTruthy();
    expect(to.searchParams.get('nonce')).toBeTruthy();
    expect(to.searchParams.get('redirect_uri')).toBe(`${sg.gw.url}/api/v1/auth/oauth/acme/callback`);
  });

  it('signs up a new user, then signs the same user in; the state works once', async () => {
    const who = providerUser();
    const first = await providerSignIn(who.login);
    expect(first.result, first.back.href).toBe('signed_in');
    const me = await meWithCookie(first.browser);
    expect(me.status).toBe(200);
    expect(me.json.data).toMatchObject({ email: who.email, has_password: false });
    const again = await providerSignIn(who.login);
    expect(again.result).toBe('signed_in');
    expect((await meWithCookie(again.browser)).json.data.id).toBe(me.json.data.id);

    // Replaying a finished return (same state and code) is refused.
    const browser = new Browser();
    const callback = await browser.signInAtProvider(
      `${sg.gw.url}/api/v1/auth/oauth/acme/authorize`,
      who.login,
      atCallback,
    );
    expect((await browser.request(callback.href)).status).toBe(302);
    const replay = await browser.request(callback.href, { headers: { accept: 'application/json' } });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as Json).error_code).toBe('oauth_failed');
  });

  it('a forged or unknown state is refused, and the console is told', async () => {
    const res = await fetch(`${sg.gw.url}/api/v1/auth/oauth/acme/callback?code=abc&state=forged`, {
      redirect: 'manual',
    });
    const to = new URL(res.headers.get('location')!);
    expect(to.origin).toBe(CONSOLE);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      provider: 'acme',
      result: 'error',
      error_code: 'oauth_failed',
    });
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('does not sign up over an existing account with the same e-mail, nor without a verified e-mail', async () => {
    const existing = await sg.gw.account();
    const login = `p-${randomBytes(4).toString('hex')}`;
    oidc.accounts.set(login, existing.email);
    const taken = await returnAsJson(`${sg.gw.url}/api/v1/auth/oauth/acme/authorize`, login);
    expect(taken.status).toBe(409);
    expect(taken.json.error_code).toBe('identity_email_in_use');

    const unverified = providerUser();
    oidc.unverified.add(unverified.login);
    const refused = await providerSignIn(unverified.login);
    expect(refused.result).toBe('error');
    expect(refused.back.searchParams.get('error_code')).toBe('oauth_failed');
  });

  it('with two-step verification on, a provider sign-in needs the e-mailed code (ticket + code)', async () => {
    const who = providerUser();
    const signedUp = await providerSignIn(who.login);
    const token = (await api(sg.gw, 'POST', '/auth/login', { body: { identifier: who.email, password: 'x' } })).status; // no password: refused
    expect(token).toBe(401);
    const cookie = signedUp.browser.cookieHeader(sg.gw.url);
    const inbox = sg.inbox(who.email);
    await api(sg.gw, 'POST', '/auth/sensitive-code', { cookie, body: { action: 'two_factor' } });
    expect(
      (await api(sg.gw, 'POST', '/auth/two-factor', { cookie, body: { enabled: true, code: await inbox.nextCode() } }))
        .json.data,
    ).toEqual({ enabled: true });

    const held = await providerSignIn(who.login);
    expect(held.result).toBe('mfa_required');
    expect(held.browser.cookieHeader(sg.gw.url)).toBe('');
    const ticket = held.back.searchParams.get('ticket')!;
    const code = await inbox.nextCode();
    expectFailure(
      await api(sg.gw, 'POST', '/auth/oauth/2fa', { body: { ticket, code: wrongCode(code) } }),
      401,
      'mfa_invalid',
    );
    const done = await api(sg.gw, 'POST', '/auth/oauth/2fa', { body: { ticket, code } });
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    expect(done.json.data.user.email).toBe(who.email);
    // The ticket is spent.
    expectFailure(await api(sg.gw, 'POST', '/auth/oauth/2fa', { body: { ticket, code } }), 401, 'mfa_invalid');
  });

  it('a JSON client of a provider sign-in held by two-step gets 401 mfa_required, the ticket in details', async () => {
    const who = providerUser();
    const signedUp = await providerSignIn(who.login);
    const cookie = signedUp.browser.cookieHeader(sg.gw.url);
    const inbox = sg.inbox(who.email);
    await api(sg.gw, 'POST', '/auth/sensitive-code', { cookie, body: { action: 'two_factor' } });
    await api(sg.gw, 'POST', '/auth/two-factor', { cookie, body: { enabled: true, code: await inbox.nextCode() } });

    const json = await returnAsJson(`${sg.gw.url}/api/v1/auth/oauth/acme/authorize`, who.login);
    expect(json.status).toBe(401);
    expect(json.json).toMatchObject({
      code: 401,
      error_code: 'mfa_required',
      param: 'code',
      details: { provider: 'acme' },
    });
    const ticket = (json.json.details as { ticket: string }).ticket;
    const done = await api(sg.gw, 'POST', '/auth/oauth/2fa', { body: { ticket, code: await inbox.nextCode() } });
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    expect(done.json.data.user.email).toBe(who.email);
  });

  it('links with password + code, refuses a second account of the provider and a third-party account of another user', async () => {
    const s = await userSession(sg.gw);
    const who = providerUser();
    const browser = await consoleBrowser(s);
    const { url, expires_at } = await linkUrl(s, browser);
    expect(new URL(url).origin).toBe(oidc.issuer);
    expect(Date.parse(expires_at)).toBeGreaterThan(Date.now());
    const linked = await browser.signInAtProvider(url, who.login, atConsole);
    expect(linked.searchParams.get('result')).toBe('linked');
    const identities = await api(sg.gw, 'GET', '/auth/identities', { token: s.token });
    expect(identities.json.data).toEqual([{ provider: 'acme', email: who.email, linked_at: expect.any(String) }]);
    // The linked provider account now signs in to this user.
    const viaProvider = await providerSignIn(who.login);
    expect((await meWithCookie(viaProvider.browser)).json.data.id).toBe(s.userId);

    // A second account of the same provider: refused before any code is spent.
    expectFailure(
      await api(sg.gw, 'POST', '/auth/oauth/acme/link', {
        token: s.token,
        body: { password: 'password123', code: '12345678' },
      }),
      409,
      'provider_already_linked',
    );

    // Another user trying to link the same third-party account.
    const other = await userSession(sg.gw);
    const otherBrowser = await consoleBrowser(other);
    const otherLink = await linkUrl(other, otherBrowser);
    const conflict = await returnAsJson(otherLink.url, who.login, otherBrowser);
    expect(conflict.status).toBe(409);
    expect(conflict.json).toEqual({
      code: 409,
      error_code: 'identity_already_linked',
      message: expect.any(String),
      request_id: expect.any(String),
    });
    expect((await api(sg.gw, 'GET', '/auth/identities', { token: other.token })).json.data).toEqual([]);
  });

  it('unlinks with password + code; refuses to remove the last way in; 404 for what is not linked', async () => {
    const s = await userSession(sg.gw);
    const who = providerUser();
    const browser = await consoleBrowser(s);
    await browser.signInAtProvider((await linkUrl(s, browser)).url, who.login, atConsole);
    const other = await userSession(sg.gw);
    expectFailure(
      await api(sg.gw, 'POST', '/auth/identities/acme/unlink', {
        token: other.token,
        body: { password: 'password123', code: '12345678' },
      }),
      404,
      'not_found',
    );

    const inbox = sg.inbox(s.email);
    await api(sg.gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'unlink_provider' } });
    const code = await inbox.nextCode();
    expectFailure(
      await api(sg.gw, 'POST', '/auth/identities/acme/unlink', {
        token: s.token,
        body: { password: 'wrong-password', code },
      }),
      403,
      'invalid_password',
    );
    const done = await api(sg.gw, 'POST', '/auth/identities/acme/unlink', {
      token: s.token,
      body: { password: 'password123', code },
    });
    expect(done.status, JSON.stringify(done.json)).toBe(204);
    expect((await api(sg.gw, 'GET', '/auth/identities', { token: s.token })).json.data).toEqual([]);

    // A provider-made account (no password, no passkey) cannot drop its only provider.
    const lone = providerUser();
    const signedUp = await providerSignIn(lone.login);
    const cookie = signedUp.browser.cookieHeader(sg.gw.url);
    expectFailure(
      await api(sg.gw, 'POST', '/auth/identities/acme/unlink', { cookie, body: { code: '12345678' } }),
      409,
      'last_sign_in_method',
    );
  });
});
