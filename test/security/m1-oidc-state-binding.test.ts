// M1: the OpenID Connect `state` was not bound to the browser that started the flow. An attacker
// could stop at the callback of their own provider sign-in and send that URL to a victim (login
// CSRF: the victim works in the attacker's account), or send their own account's link URL (link
// CSRF: the victim's provider identity is tied to the attacker's account for good). Now a binding
// cookie, hashed into the state, is required at the callback, a link finishes only in the console
// session that started it, and the console is shown only our own words.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, userSession } from '../console/helpers.js';
import { startSecurityGateway, type SecurityGateway } from '../console/security-gateway.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { Browser, startOidc, type TestOidc } from '../support/oidc.js';

const CONSOLE = 'http://console.example.test';
let oidc: TestOidc;
let sg: SecurityGateway;
let httpsConsole: TestGateway;

beforeAll(async () => {
  oidc = await startOidc();
  const provider = {
    OIDC_PROVIDERS: 'acme',
    OIDC_ACME_ISSUER: oidc.issuer,
    OIDC_ACME_CLIENT_ID: oidc.clientId,
    OIDC_ACME_CLIENT_SECRET: oidc.clientSecret,
  };
  sg = await startSecurityGateway({ env: { CONSOLE_ORIGIN: CONSOLE, ...provider } });
  httpsConsole = await startTestGateway({ env: { CONSOLE_ORIGIN: 'https://console.example.test', ...provider } });
  oidc.register([`${sg.gw.url}/api/v1/auth/oauth/acme/callback`]);
});
afterAll(async () => {
  await httpsConsole?.close();
  await sg?.close();
  await oidc?.close();
});

const authorizeUrl = () => `${sg.gw.url}/api/v1/auth/oauth/acme/authorize`;
const callbackUrl = () => `${sg.gw.url}/api/v1/auth/oauth/acme/callback`;
const atConsole = (u: URL) => u.origin === CONSOLE;
const atCallback = (u: URL) => u.href.startsWith(callbackUrl());

function providerUser(): { login: string; email: string } {
  const login = `p-${randomBytes(4).toString('hex')}`;
  const email = `${login}@provider.example.test`;
  oidc.accounts.set(login, email);
  return { login, email };
}

async function consoleBrowser(s: { email: string }): Promise<Browser> {
  const browser = new Browser();
  expect(
    (
      await browser.consoleCall(`${sg.gw.url}/api/v1/auth/login`, 'POST', {
        identifier: s.email,
        password: 'password123',
      })
    ).status,
  ).toBe(200);
  return browser;
}

async function startLink(s: { token: string; email: string }, browser: Browser): Promise<string> {
  const inbox = sg.inbox(s.email);
  expect(
    (await api(sg.gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'link_provider' } })).status,
  ).toBe(202);
  const reply = await browser.consoleCall(`${sg.gw.url}/api/v1/auth/oauth/acme/link`, 'POST', {
    password: 'password123',
    code: await inbox.nextCode(),
  });
  expect(reply.status, JSON.stringify(reply.json)).toBe(200);
  return reply.json.data.url as string;
}

const me = async (browser: Browser) =>
  (await browser.consoleCall(`${sg.gw.url}/api/v1/auth/me`, 'GET')).json?.data?.id as string | undefined;
const identities = async (token: string) => (await api(sg.gw, 'GET', '/auth/identities', { token })).json.data;

/** A console return that is an error with our own code → its query. */
function refusedAtConsole(back: URL): Record<string, string> {
  expect(back.origin + back.pathname).toBe(`${CONSOLE}/oauth/callback`);
  const query = Object.fromEntries(back.searchParams);
  expect(query).toMatchObject({ result: 'error', error_code: 'oauth_failed' });
  return query;
}

/** A fresh browser that started a sign-in (holding its binding cookie) → it and the state the provider would return. */
async function startedSignIn(): Promise<{ browser: Browser; state: string }> {
  const browser = new Browser();
  const res = await browser.request(authorizeUrl());
  return { browser, state: new URL(res.headers.get('location')!).searchParams.get('state')! };
}

describe('M1: a provider return counts only in the browser that started it', () => {
  it('login CSRF: the attacker’s callback URL opened by a victim signs nobody in and creates nothing', async () => {
    const attacker = providerUser();
    const carried = await new Browser().signInAtProvider(authorizeUrl(), attacker.login, atCallback);

    const victim = await userSession(sg.gw);
    const victimBrowser = await consoleBrowser(victim);
    await victimBrowser.request(authorizeUrl()); // a sign-in of the victim's own in progress: its binding does not fit either
    const res = await victimBrowser.request(carried.href);
    expect(res.status).toBe(302);
    refusedAtConsole(new URL(res.headers.get('location')!));
    expect(res.headers.getSetCookie().some((c) => c.includes('gw_session'))).toBe(false);
    expect(await me(victimBrowser)).toBe(victim.userId);
    const made = await sg.gw.services.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', attacker.email)
      .executeTakeFirst();
    expect(made).toBeUndefined();

    // The same with a browser that holds no binding at all, asking for JSON.
    const again = await new Browser().signInAtProvider(authorizeUrl(), attacker.login, atCallback);
    const json = await new Browser().request(again.href, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error_code: string }).error_code).toBe('oauth_failed');
  });

  it('link CSRF: the attacker’s link URL opened by a signed-in victim links nothing to the attacker', async () => {
    const attacker = await userSession(sg.gw);
    const url = await startLink(attacker, await consoleBrowser(attacker));

    const victim = await userSession(sg.gw);
    const victimIdentity = providerUser();
    const victimBrowser = await consoleBrowser(victim);
    refusedAtConsole(await victimBrowser.signInAtProvider(url, victimIdentity.login, atConsole));
    expect(await identities(attacker.token)).toEqual([]);
    expect(await identities(victim.token)).toEqual([]);
    const linked = await sg.gw.services.db
      .selectFrom('user_identities')
      .select('user_id')
      .where('subject', '=', victimIdentity.login)
      .executeTakeFirst();
    expect(linked).toBeUndefined();
  });

  it('a link finishes only in the console session that started it', async () => {
    const owner = await userSession(sg.gw);
    const browser = await consoleBrowser(owner);
    const url = await startLink(owner, browser);
    // Someone else signs in to the console in this browser before the provider sends it back.
    const other = await userSession(sg.gw);
    expect(
      (
        await browser.consoleCall(`${sg.gw.url}/api/v1/auth/login`, 'POST', {
          identifier: other.email,
          password: 'password123',
        })
      ).status,
    ).toBe(200);
    refusedAtConsole(await browser.signInAtProvider(url, providerUser().login, atConsole));
    expect(await identities(owner.token)).toEqual([]);
    expect(await identities(other.token)).toEqual([]);
  });

  it('the console is shown only our own words: not error_description, an unknown error, the token endpoint’s text or an unknown provider name', async () => {
    const bait = 'Your account is suspended: call +1 555 0100';
    for (const error of ['access_denied', `<b>${bait}</b>`]) {
      const { browser, state } = await startedSignIn();
      const res = await browser.request(
        `${callbackUrl()}?${new URLSearchParams({ state, error, error_description: bait })}`,
      );
      const query = refusedAtConsole(new URL(res.headers.get('location')!));
      expect(query.message).not.toMatch(/555|suspended/);
      expect(query.message).toContain(error === 'access_denied' ? '(access_denied)' : '(unknown reason)');
    }

    // A code the provider's token endpoint refuses: its error_description stays in the log.
    const { browser, state } = await startedSignIn();
    const exchange = await browser.request(`${callbackUrl()}?${new URLSearchParams({ state, code: 'forged-code' })}`);
    expect(refusedAtConsole(new URL(exchange.headers.get('location')!)).message).toBe(
      "the sign-in with 'acme' could not be completed: start again",
    );

    const res = await fetch(`${sg.gw.url}/api/v1/auth/oauth/${encodeURIComponent(bait)}/callback?state=x`, {
      redirect: 'manual',
    });
    const back = new URL(res.headers.get('location')!);
    expect(back.origin).toBe(CONSOLE);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      result: 'error',
      error_code: 'not_found',
      message: 'no such sign-in provider',
    });
  });

  it('the binding cookie is HttpOnly, SameSite=Lax, sent only to the callback, lives as long as the state, and is Secure when the console is https', async () => {
    const res = await fetch(authorizeUrl(), { redirect: 'manual' });
    const [cookie = ''] = res.headers.getSetCookie();
    expect(cookie).toMatch(
      /^gw_oidc_binding=[A-Za-z0-9_-]{43}; path=\/api\/v1\/auth\/oauth\/acme\/callback; expires=[^;]+; samesite=lax; httponly$/,
    );
    const lifetime = Date.parse(/expires=([^;]+)/.exec(cookie)![1]!) - Date.now();
    expect(lifetime).toBeGreaterThan(8 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(10 * 60_000);

    const secure = await fetch(`${httpsConsole.url}/api/v1/auth/oauth/acme/authorize`, { redirect: 'manual' });
    expect(secure.headers.getSetCookie()[0]).toMatch(
      /^gw_oidc_binding=[^;]+; path=\/api\/v1\/auth\/oauth\/acme\/callback; expires=[^;]+; samesite=lax; secure; httponly$/,
    );
  });
});
