import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../support/authenticator.js';
import { api, expectFailure, userSession, type Reply } from './helpers.js';
import { startSecurityGateway, type SecurityGateway } from './security-gateway.js';

// What a sign-in hands out (docs/reference/console-api.md, "Session credentials"): a browser (an
// Origin header) gets the HttpOnly cookie only, a console in bearer mode (`X-Console-Session:
// bearer`) only a short-lived gwb_ token, a client without Origin the gws_ session token as ever.
const CONSOLE = 'http://127.0.0.1:9';
let sg: SecurityGateway;

beforeAll(async () => {
  sg = await startSecurityGateway({ env: { CONSOLE_ORIGIN: CONSOLE, WEBAUTHN_ORIGIN: CONSOLE } });
});
afterAll(async () => {
  await sg?.close();
});

const BROWSER = { origin: CONSOLE };
const BEARER_CONSOLE = { origin: CONSOLE, 'x-console-session': 'bearer' };
const login = (
  email: string,
  headers: Record<string, string>,
  extra: Record<string, string> = {},
  path = '/auth/login',
) => api(sg.gw, 'POST', path, { body: { identifier: email, password: 'password123', ...extra }, headers });
const sessionCookie = (reply: Reply) =>
  /(?:^|[;,]\s*)((?:__Host-)?gw_session=[^;]+)/.exec(reply.headers.get('set-cookie') ?? '')?.[1];

/** The answer holds no gws_ session token anywhere, in any field. */
function expectNoSessionToken(reply: Reply): void {
  expect(JSON.stringify(reply.json)).not.toMatch(/gws_/);
}

async function liveSessions(userId: string): Promise<number> {
  const rows = await sg.gw.services.db
    .selectFrom('console_sessions')
    .select('id')
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
  return rows.length;
}

describe('sign-in credentials', () => {
  it('a browser (Origin) gets the cookie only: no session token in the body, and the cookie works', async () => {
    const { email } = await sg.gw.account();
    const reply = await login(email, BROWSER);
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    expectNoSessionToken(reply);
    expect(Object.keys(reply.json.data).sort()).toEqual(['expires_at', 'user']);
    expect(reply.json.data.user.email).toBe(email);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    const cookie = sessionCookie(reply);
    expect(cookie).toMatch(/^gw_session=gws_/);
    expect(reply.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    expect((await api(sg.gw, 'GET', '/auth/me', { cookie })).json.data.email).toBe(email);
  });

  it('a console in bearer mode gets a 15-minute gwb_ token and no cookie; it signs calls and renews', async () => {
    const { email, userId } = await sg.gw.account();
    const before = Date.now();
    const reply = await login(email, BEARER_CONSOLE);
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    expectNoSessionToken(reply);
    expect(reply.headers.get('set-cookie')).toBeNull();
    expect(reply.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    const { token, expires_at } = reply.json.data;
    expect(token).toMatch(/^gwb_[\w-]+\.[\w-]+$/);
    expect(Date.parse(expires_at) - before).toBeLessThanOrEqual(15 * 60_000 + 1000);
    expect(Date.parse(expires_at) - before).toBeGreaterThan(14 * 60_000);
    expect((await api(sg.gw, 'GET', '/auth/me', { token })).json.data.email).toBe(email);
    // A session like any other: listed, renewable with the short token, ended by signing out.
    expect(await liveSessions(userId)).toBe(1);
    const renewed = await api(sg.gw, 'POST', '/auth/session/token', { token });
    expect(renewed.json.data.token).toMatch(/^gwb_/);
    expect((await api(sg.gw, 'POST', '/auth/logout', { token: renewed.json.data.token })).status).toBe(200);
    expectFailure(await api(sg.gw, 'GET', '/auth/me', { token }), 401, 'unauthorized');
  });

  it('a client without Origin keeps getting the session token, beside the cookie', async () => {
    const { email } = await sg.gw.account();
    const reply = await login(email, {});
    expect(reply.status).toBe(200);
    expect(reply.json.data.token).toMatch(/^gws_/);
    expect(sessionCookie(reply)).toBe(`gw_session=${reply.json.data.token}`);
  });

  it('the same rule answers the two-step sign-in, the confirmed sign-up and the passkey sign-in', async () => {
    // Two-step: the code is asked for, then the sign-in with it answers per the rule.
    const s = await userSession(sg.gw);
    const inbox = sg.inbox(s.email);
    await api(sg.gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'two_factor' } });
    const on = await api(sg.gw, 'POST', '/auth/two-factor', {
      token: s.token,
      body: { enabled: true, password: 'password123', code: await inbox.nextCode() },
    });
    expect(on.status).toBe(200);
    expectFailure(await login(s.email, BEARER_CONSOLE), 401, 'mfa_required');
    const twoStep = await login(s.email, BEARER_CONSOLE, { code: await inbox.nextCode() }, '/auth/login/2fa');
    expect(twoStep.status, JSON.stringify(twoStep.json)).toBe(200);
    expect(twoStep.json.data.token).toMatch(/^gwb_/);

    // Sign-up confirmed from a browser: the cookie only.
    const email = `new-${Date.now()}@example.test`;
    const signUpInbox = sg.inbox(email);
    const password = 'a long enough passphrase 42';
    expect((await api(sg.gw, 'POST', '/auth/register', { body: { email, password }, headers: BROWSER })).status).toBe(
      202,
    );
    const confirmed = await api(sg.gw, 'POST', '/auth/register/confirm', {
      body: { email, password, code: await signUpInbox.nextCode() },
      headers: BROWSER,
    });
    expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(201);
    expectNoSessionToken(confirmed);
    expect(sessionCookie(confirmed)).toMatch(/^gw_session=gws_/);

    // A passkey sign-in in bearer mode: the short token only.
    const device = new SoftAuthenticator(CONSOLE);
    await api(sg.gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'add_passkey' } });
    const options = await api(sg.gw, 'POST', '/auth/passkeys/register/options', {
      token: s.token,
      body: { password: 'password123', code: await inbox.nextCode() },
    });
    const added = await api(sg.gw, 'POST', '/auth/passkeys/register', {
      token: s.token,
      body: { ceremony_id: options.json.data.ceremony_id, response: device.create(options.json.data.options) },
    });
    expect(added.status, JSON.stringify(added.json)).toBe(201);
    const start = await api(sg.gw, 'POST', '/auth/passkeys/login/options', { headers: BEARER_CONSOLE });
    const passkey = await api(sg.gw, 'POST', '/auth/passkeys/login', {
      body: { ceremony_id: start.json.data.ceremony_id, response: device.get(start.json.data.options) },
      headers: BEARER_CONSOLE,
    });
    expect(passkey.status, JSON.stringify(passkey.json)).toBe(200);
    expectNoSessionToken(passkey);
    expect(passkey.json.data.token).toMatch(/^gwb_/);
    expect(passkey.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a wrong X-Console-Session before signing in, naming the header', async () => {
    const { email, userId } = await sg.gw.account();
    const reply = await login(email, { origin: CONSOLE, 'x-console-session': 'token' });
    expectFailure(reply, 400, 'invalid_request', /X-Console-Session/);
    expect(reply.json.param).toBe('X-Console-Session');
    expect(await liveSessions(userId)).toBe(0);
  });

  it("lets the console's origin send the header cross-origin (preflight)", async () => {
    const res = await fetch(`${sg.gw.url}/api/v1/auth/login`, {
      method: 'OPTIONS',
      headers: {
        origin: CONSOLE,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-console-session',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')).toContain('x-console-session');
  });
});
