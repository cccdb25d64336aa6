import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { api, expectFailure, signIn, userSession } from './helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

describe('POST /api/v1/auth/login', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie and returns the same session as a token', async () => {
    const acct = await gw.account();
    const s = await signIn(gw, acct.email);
    const attrs = s.setCookie.toLowerCase().split(/;\s*/);
    expect(attrs).toEqual(expect.arrayContaining(['path=/', 'httponly', 'samesite=lax']));
    expect(attrs).not.toContain('secure'); // plain HTTP here; see secure-cookie.test.ts
    expect(s.cookie).toBe(`gw_session=${s.token}`);
    expect(s.reply.headers.get('cache-control')).toBe('no-store');

    const { data, request_id } = s.reply.json;
    expect(request_id).toBe(s.reply.headers.get('x-request-id'));
    expect(data.user).toMatchObject({ id: acct.userId, email: acct.email, has_password: true });
    expect(data.user).not.toHaveProperty('password_hash');
    const ttlMs = new Date(data.expires_at).getTime() - Date.now();
    expect(ttlMs).toBeGreaterThan(167 * 3_600_000); // SESSION_TTL_HOURS defaults to a week
    expect(ttlMs).toBeLessThanOrEqual(168 * 3_600_000);
    const cookieExpires = /expires=([^;]+)/i.exec(s.setCookie)?.[1] ?? '';
    expect(Math.abs(new Date(cookieExpires).getTime() - new Date(data.expires_at).getTime())).toBeLessThan(1_000);
  });

  it('matches the e-mail case-insensitively', async () => {
    const acct = await gw.account();
    const s = await signIn(gw, `  ${acct.email.toUpperCase()}`);
    expect(s.reply.json.data.user.id).toBe(acct.userId);
  });

  it('answers the same 401 invalid_credentials for a wrong password and an unknown user', async () => {
    const acct = await gw.account();
    const wrong = await api(gw, 'POST', '/auth/login', { body: { identifier: acct.email, password: 'password124' } });
    const unknown = await api(gw, 'POST', '/auth/login', {
      body: { identifier: 'nobody@example.test', password: 'password123' },
    });
    expectFailure(wrong, 401, 'invalid_credentials');
    expectFailure(unknown, 401, 'invalid_credentials');
    expect(unknown.json.message).toBe(wrong.json.message);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });
});

describe('GET /api/v1/auth/me', () => {
  it('answers the signed-in user with the cookie or the bearer token', async () => {
    const s = await userSession(gw);
    const byCookie = await api(gw, 'GET', '/auth/me', { cookie: s.cookie });
    const byToken = await api(gw, 'GET', '/auth/me', { token: s.token });
    expect(byCookie.status).toBe(200);
    expect(byCookie.json).toEqual({ data: s.reply.json.data.user, request_id: byCookie.headers.get('x-request-id') });
    expect(byToken.json.data).toEqual(byCookie.json.data);
  });

  it('refuses a request without a credential, or with an unknown token', async () => {
    expectFailure(await api(gw, 'GET', '/auth/me'), 401, 'unauthorized');
    expectFailure(await api(gw, 'GET', '/auth/me', { token: 'gws_not-a-session' }), 401, 'unauthorized');
    expectFailure(await api(gw, 'GET', '/auth/me', { cookie: 'gw_session=gws_forged' }), 401, 'unauthorized');
    expectFailure(
      await api(gw, 'GET', '/keys', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }),
      401,
      'unauthorized',
    );
  });

  it('reads the cookie next to another Authorization scheme (a site behind HTTP basic auth)', async () => {
    const s = await userSession(gw);
    const me = await api(gw, 'GET', '/auth/me', { cookie: s.cookie, headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(me.json.data.id).toBe(s.userId);
  });
});

describe('API keys on the console API', () => {
  it('are refused as a bearer token or in x-api-key, even next to a valid session', async () => {
    const s = await userSession(gw);
    const refused = /API keys are not accepted/;
    expectFailure(await api(gw, 'GET', '/auth/me', { token: s.key }), 401, 'unauthorized', refused);
    expectFailure(await api(gw, 'GET', '/keys', { token: s.key }), 401, 'unauthorized', refused);
    expectFailure(await api(gw, 'GET', '/auth/me', { token: 'ak-someprivatekey' }), 401, 'unauthorized', refused);
    expectFailure(
      await api(gw, 'GET', '/keys', { cookie: s.cookie, headers: { 'x-api-key': s.key } }),
      401,
      'unauthorized',
      refused,
    );
    const login = await api(gw, 'POST', '/auth/login', {
      token: s.key,
      body: { identifier: s.email, password: 'password123' },
    });
    expectFailure(login, 401, 'unauthorized', refused);
  });
});

describe('POST /api/v1/auth/logout', () => {
  it('revokes the session for cookie and token alike, clears the cookie, and leaves other sessions alone', async () => {
    const s = await userSession(gw);
    const other = await signIn(gw, s.email);
    const out = await api(gw, 'POST', '/auth/logout', { cookie: s.cookie }); // no body at all
    expect(out.status).toBe(200);
    expect(out.json).toEqual({ data: null, request_id: out.headers.get('x-request-id') });
    const cleared = (out.headers.get('set-cookie') ?? '').toLowerCase();
    expect(cleared).toMatch(/^gw_session=;/);
    expect(cleared).toContain('expires=thu, 01 jan 1970');
    expect(cleared).toContain('path=/');

    expectFailure(await api(gw, 'GET', '/auth/me', { cookie: s.cookie }), 401, 'unauthorized');
    expectFailure(await api(gw, 'GET', '/auth/me', { token: s.token }), 401, 'unauthorized');
    expectFailure(await api(gw, 'POST', '/auth/logout', { token: s.token }), 401, 'unauthorized');
    expect((await api(gw, 'GET', '/auth/me', { token: other.token })).status).toBe(200);
  });

  it('works with the bearer token and an empty JSON object', async () => {
    const s = await userSession(gw);
    expect((await api(gw, 'POST', '/auth/logout', { token: s.token, body: {} })).status).toBe(200);
    expectFailure(await api(gw, 'GET', '/auth/me', { cookie: s.cookie }), 401, 'unauthorized');
  });
});
