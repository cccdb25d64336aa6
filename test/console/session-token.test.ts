import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offsetClock, startTestGateway, type TestGateway } from '../support/gateway.js';
import { api, expectFailure, signIn, userSession } from './helpers.js';

// POST /api/v1/auth/session/token: the short-lived bearer token of a session, for a console site
// that is not same-site with the API (its requests carry no SameSite=Lax cookie).
const CONSOLE = 'http://127.0.0.1:9'; // another site than the API's
const clock = offsetClock();
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ clock, env: { CONSOLE_ORIGIN: CONSOLE } });
});
afterAll(() => gw.close());

const issue = (o: Parameters<typeof api>[3]) => api(gw, 'POST', '/auth/session/token', o);

describe('POST /api/v1/auth/session/token', () => {
  it('issues a 15-minute gwb_ token for the same session, which signs calls (no Origin needed) and renews itself', async () => {
    const s = await userSession(gw);
    const before = clock.now();
    const reply = await issue({ cookie: s.cookie, headers: { origin: CONSOLE } });
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    const { token, expires_at } = reply.json.data;
    expect(token).toMatch(/^gwb_[\w-]+\.[\w-]+$/);
    const ttl = Date.parse(expires_at) - before;
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000 + 1000);

    const me = await api(gw, 'GET', '/auth/me', { token });
    expect(me.json.data.email).toBe(s.email);
    // The same session: the sessions list marks it current.
    const sessions = await api(gw, 'GET', '/auth/sessions', { token });
    const mine = await api(gw, 'GET', '/auth/sessions', { token: s.token });
    expect(sessions.json.data.find((x: { current: boolean }) => x.current).id).toBe(
      mine.json.data.find((x: { current: boolean }) => x.current).id,
    );
    // A state change with the bearer token needs no Origin (a foreign page cannot attach it).
    const renamed = await api(gw, 'PATCH', '/auth/me', { token, body: { nickname: 'Bearer' } });
    expect(renamed.status, JSON.stringify(renamed.json)).toBe(200);
    const renewed = await issue({ token });
    expect(renewed.status).toBe(200);
    expect(renewed.json.data.token).toMatch(/^gwb_/);
    expect((await api(gw, 'GET', '/auth/me', { token: renewed.json.data.token })).status).toBe(200);
  });

  it('is refused to a cookie call from a foreign origin (CSRF) and to a caller without a session', async () => {
    const s = await userSession(gw);
    expectFailure(await issue({ cookie: s.cookie, headers: { origin: 'https://evil.example' } }), 403, 'csrf_rejected');
    expectFailure(await issue({}), 401, 'unauthorized');
    const key = await gw.account();
    expectFailure(await issue({ token: key.key }), 401, 'unauthorized');
  });

  it('refuses a tampered or expired token', async () => {
    const s = await userSession(gw);
    const { token } = (await issue({ token: s.token })).json.data;
    const [payload, mac] = token.slice(4).split('.');
    const other = Buffer.from(JSON.stringify(['00000000-0000-4000-8000-000000000000', Date.now() + 60_000])).toString(
      'base64url',
    );
    expectFailure(await api(gw, 'GET', '/auth/me', { token: `gwb_${other}.${mac}` }), 401, 'unauthorized');
    expectFailure(await api(gw, 'GET', '/auth/me', { token: `gwb_${payload}.${mac}x` }), 401, 'unauthorized');
    clock.advance(15 * 60_000 + 1000);
    try {
      expectFailure(await api(gw, 'GET', '/auth/me', { token }), 401, 'unauthorized');
      // The session itself lives on: a fresh token works.
      expect(
        (await api(gw, 'GET', '/auth/me', { token: (await issue({ token: s.token })).json.data.token })).status,
      ).toBe(200);
    } finally {
      clock.set(Date.now());
    }
  });

  it('ends with its session: signing out with it, or revoking the session, refuses every token of it', async () => {
    const s = await userSession(gw);
    const first = (await issue({ token: s.token })).json.data.token;
    const second = (await issue({ token: first })).json.data.token;
    expect((await api(gw, 'POST', '/auth/logout', { token: second })).status).toBe(200);
    for (const token of [s.token, first, second])
      expectFailure(await api(gw, 'GET', '/auth/me', { token }), 401, 'unauthorized');

    const again = await signIn(gw, s.email);
    const other = await signIn(gw, s.email);
    const token = (await issue({ token: again.token })).json.data.token;
    const id = (await api(gw, 'GET', '/auth/sessions', { token })).json.data.find(
      (x: { current: boolean }) => x.current,
    ).id;
    expect((await api(gw, 'POST', `/auth/sessions/${id}/revoke`, { token: other.token })).status).toBe(204);
    expectFailure(await api(gw, 'GET', '/auth/me', { token }), 401, 'unauthorized');
  });
});
