import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayRouters } from '../../api/app.js';
import { consoleRoutes } from '../../api/console/routes/index.js';
import { api, expectFailure, userSession, type Reply } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// H1: the console's CSRF guard ran only for paths starting `/api/v1/` exactly while the routers
// matched any case, and console bodies were read as JSON whatever their Content-Type: a page on
// another site could create keys (`POST /API/V1/keys`), sign the user out, or sign them in to the
// attacker's account with an `enctype=text/plain` form.
const EVIL = 'https://evil.example';
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

/** Every state-changing console route, read from the route list the router is built from, with its `:params` filled in. */
function stateChangingRoutes(): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  for (const route of consoleRoutes.routes) {
    const path = route.path.replace(/:(\w+)/g, (_, name: string) => (name === 'provider' ? 'acme' : randomUUID()));
    const method = route.method.toUpperCase();
    if (STATE_CHANGING.has(method)) routes.push({ method, path });
  }
  return routes;
}

/** The same path in other casings: all upper, the prefix alone, the rest alone. */
function casings(path: string): string[] {
  const rest = path.slice('/api/v1'.length);
  return [path.toUpperCase(), `/Api/V1${rest}`, `/api/v1${rest.toUpperCase()}`].filter((p) => p !== path);
}

async function send(method: string, path: string, headers: Record<string, string>, body = '{}'): Promise<Reply> {
  const res = await fetch(`${gw.url}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

const keyCount = async (userId: string) =>
  Number(
    (
      await gw.services.db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('H1: the console CSRF guard and mixed-case paths', () => {
  it('the reproduced attacks: a key created from another site, a sign-out, a text/plain login', async () => {
    const s = await userSession(gw);
    const before = await keyCount(s.userId);
    const json = { cookie: s.cookie, origin: EVIL, 'content-type': 'application/json' };
    const created = await send('POST', '/API/V1/keys', json, JSON.stringify({ name: 'stolen' }));
    expect(created.status).not.toBe(201);
    expect(await keyCount(s.userId)).toBe(before);
    expect((await send('POST', '/Api/v1/auth/logout', json)).status).not.toBe(200);
    expect((await api(gw, 'GET', '/auth/me', { cookie: s.cookie })).status).toBe(200);
    // What `<form method=post enctype=text/plain>` with one field named `{"identifier":…,"x":"` sends.
    const form = `{"identifier":"${s.email}","password":"password123","x":"="}`;
    for (const path of ['/Api/v1/auth/login', '/api/v1/auth/login']) {
      const login = await send('POST', path, { origin: EVIL, 'content-type': 'text/plain' }, form);
      expect(login.status, path).not.toBe(200);
      expect(login.headers.get('set-cookie'), path).toBeNull();
    }
  });

  it('refuses every state-changing console route from a foreign Origin, in every casing of its path', async () => {
    const s = await userSession(gw);
    const routes = stateChangingRoutes();
    expect(routes.length).toBeGreaterThan(30);
    const before = await keyCount(s.userId);
    for (const { method, path } of routes) {
      for (const origin of [EVIL, 'null']) {
        const reply = await send(method, path, { cookie: s.cookie, origin, 'content-type': 'application/json' });
        expectFailure(reply, 403, 'csrf_rejected');
      }
      // A cookie without any Origin is refused too (browsers send one on every such request).
      expectFailure(
        await send(method, path, { cookie: s.cookie, 'content-type': 'application/json' }),
        403,
        'csrf_rejected',
      );
      for (const variant of casings(path)) {
        const reply = await send(method, variant, {
          cookie: s.cookie,
          origin: EVIL,
          'content-type': 'application/json',
        });
        expect(reply.status, `${method} ${variant}`).toBe(404);
        expect(reply.headers.get('set-cookie'), `${method} ${variant}`).toBeNull();
      }
    }
    expect(await keyCount(s.userId)).toBe(before);
    expect((await api(gw, 'GET', '/auth/me', { cookie: s.cookie })).status).toBe(200);
  });

  it('refuses a body that is not declared JSON on every state-changing console route (415), even from the own origin', async () => {
    const s = await userSession(gw);
    for (const { method, path } of stateChangingRoutes()) {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
        const reply = await send(method, path, { cookie: s.cookie, origin: gw.url, 'content-type': type }, '{}');
        expectFailure(reply, 415, 'unsupported_media_type');
      }
      const undeclared = await fetch(`${gw.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${s.token}` },
        body: new Uint8Array(Buffer.from('{}')),
      });
      expect(undeclared.status, `${method} ${path} without Content-Type`).toBe(415);
    }
    // JSON with a charset parameter is JSON.
    const ok = await send(
      'PATCH',
      '/api/v1/auth/me',
      { cookie: s.cookie, origin: gw.url, 'content-type': 'application/json; charset=utf-8' },
      JSON.stringify({ nickname: 'Ok' }),
    );
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
  });

  it('matches every route of the API case-sensitively, the fast path included', async () => {
    for (const router of gatewayRouters(gw.services))
      expect((router.opts as { sensitive?: boolean }).sensitive).toBe(true);
    const acct = await gw.account({ balance: 1_000_000 });
    const bearer = { authorization: `Bearer ${acct.key}` };
    expect((await fetch(`${gw.url}/v1/models`, { headers: bearer })).status).toBe(200);
    expect((await fetch(`${gw.url}/V1/models`, { headers: bearer })).status).toBe(404);
    const chat = JSON.stringify({ model: 'gpt-sim', messages: [{ role: 'user', content: 'hi' }] });
    const exact = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: chat,
    });
    expect(exact.status).toBe(200);
    for (const path of [
      '/V1/chat/completions',
      '/v1/Chat/Completions',
      '/V1/MESSAGES',
      '/V1BETA/models/gpt-sim:generateContent',
    ]) {
      const res = await fetch(`${gw.url}${path}`, {
        method: 'POST',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: chat,
      });
      expect(res.status, path).toBe(404);
    }
    expect((await fetch(`${gw.url}/HEALTHZ`)).status).toBe(404);
  });

  it('answers preflights with CORS headers only for the exact console prefix', async () => {
    const preflight = (path: string) =>
      fetch(`${gw.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: gw.url, 'access-control-request-method': 'POST' },
      });
    expect((await preflight('/api/v1/keys')).headers.get('access-control-allow-methods')).toContain('POST');
    expect((await preflight('/API/V1/keys')).headers.get('access-control-allow-methods')).toBeNull();
  });
});
