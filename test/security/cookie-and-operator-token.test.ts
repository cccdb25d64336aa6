import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectFailure } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// Issue 27, "Also": the session cookie was Secure only when the request itself came over HTTPS
// (a TLS proxy that does not say so left it sendable in clear), and the queue dashboard took the
// operator token from `?token=` (kept by logs, history and Referer) and stored it raw in a cookie.
const PUBLIC = 'https://gateway.example.test';
const CONSOLE = 'https://console.example.test';
const TOKEN = 'operator-token-for-the-test-0123';

let behindProxy: TestGateway;
let splitConsole: TestGateway;
beforeAll(async () => {
  [behindProxy, splitConsole] = await Promise.all([
    startTestGateway({ env: { PUBLIC_BASE_URL: PUBLIC, OPERATOR_TOKEN: TOKEN } }),
    startTestGateway({ env: { CONSOLE_ORIGIN: CONSOLE } }),
  ]);
});
afterAll(async () => {
  await behindProxy?.close();
  await splitConsole?.close();
});

const attributes = (setCookie: string) => setCookie.toLowerCase().split(/;\s*/);

async function login(gw: TestGateway) {
  const acct = await gw.account();
  const reply = await api(gw, 'POST', '/auth/login', { body: { identifier: acct.email, password: 'password123' } });
  expect(reply.status).toBe(200);
  return { token: reply.json.data.token as string, setCookie: reply.headers.get('set-cookie') ?? '' };
}

describe('the session cookie on an HTTPS deployment reached over plain HTTP', () => {
  it.each([
    ['PUBLIC_BASE_URL', () => behindProxy, PUBLIC],
    ['CONSOLE_ORIGIN', () => splitConsole, CONSOLE],
  ] as const)('is Secure and named __Host- when %s is https', async (_, gateway, origin) => {
    const gw = gateway();
    const { token, setCookie } = await login(gw);
    expect(setCookie.startsWith(`__Host-gw_session=${token};`)).toBe(true);
    expect(attributes(setCookie)).toEqual(expect.arrayContaining(['secure', 'httponly', 'path=/', 'samesite=lax']));
    expect(attributes(setCookie).some((a) => a.startsWith('domain='))).toBe(false);
    expect((await api(gw, 'GET', '/auth/me', { cookie: `__Host-gw_session=${token}` })).status).toBe(200);
    // The unprefixed name, which any sibling subdomain or plain-HTTP page could plant, is not read.
    expectFailure(await api(gw, 'GET', '/auth/me', { cookie: `gw_session=${token}` }), 401, 'unauthorized');
    const out = await api(gw, 'POST', '/auth/logout', { cookie: `__Host-gw_session=${token}`, headers: { origin } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^__Host-gw_session=;.*secure/i);
  });
});

describe('the operator token', () => {
  const url = (path: string) => `${behindProxy.url}${path}`;
  const signIn = (token: string) =>
    fetch(url('/admin/queues'), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });

  it('is never taken from a URL, nor from a cookie that holds it', async () => {
    const viaQuery = await fetch(url(`/admin/queues?token=${TOKEN}`), { redirect: 'manual' });
    expect(viaQuery.status).toBe(401);
    expect(viaQuery.headers.get('set-cookie')).toBeNull();
    expect(await viaQuery.text()).toMatch(/<form method="post"/);
    expect((await fetch(url(`/admin/queues/api/queues?token=${TOKEN}`))).status).not.toBe(200);
    expect((await fetch(url('/admin/queues/api/queues'), { headers: { cookie: `gw_operator=${TOKEN}` } })).status).toBe(
      401,
    );
    expect(
      (await fetch(url('/admin/queues/api/queues'), { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(200);
  });

  it('signs a browser in with a form: a signed, short-lived cookie that is not the token', async () => {
    const wrong = await signIn('not-the-operator-token');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const right = await signIn(TOKEN);
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/admin/queues');
    const setCookie = right.headers.get('set-cookie') ?? '';
    const value = /^gw_operator=([^;]+)/.exec(setCookie)?.[1] ?? '';
    expect(value).not.toBe('');
    expect(value).not.toContain(TOKEN);
    expect(attributes(setCookie)).toEqual(
      expect.arrayContaining(['httponly', 'samesite=strict', 'path=/admin/queues', 'secure']),
    );
    const expires = Date.parse(/expires=([^;]+)/i.exec(setCookie)?.[1] ?? '');
    expect(expires - Date.now()).toBeGreaterThan(7 * 3_600_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(8 * 3_600_000 + 1_000);

    const cookie = { cookie: `gw_operator=${value}` };
    expect((await fetch(url('/admin/queues/api/queues'), { headers: cookie })).status).toBe(200);
    expect((await fetch(url('/admin/queues'), { headers: cookie })).status).toBe(200);
    // The expiry is signed: pushing it out breaks the cookie.
    const [until, mac] = value.split('.');
    const extended = `gw_operator=${Number(until) + 86_400}.${mac}`;
    expect((await fetch(url('/admin/queues/api/queues'), { headers: { cookie: extended } })).status).toBe(401);
  });
});
