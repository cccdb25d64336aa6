import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectFailure, modelsWith, signIn, userSession } from './helpers.js';
import { mailBody, startSecurityGateway, wrongCode, type SecurityGateway } from './security-gateway.js';

// Sign-up with e-mail verification, the session list, closing an account, and CSRF/CORS.
const CONSOLE = 'https://console.example.test';
let sg: SecurityGateway;

beforeAll(async () => {
  sg = await startSecurityGateway({ env: { CONSOLE_ORIGIN: CONSOLE } });
});
afterAll(async () => {
  await sg?.close();
});

const register = (body: Record<string, unknown>) => api(sg.gw, 'POST', '/auth/register', { body });
const STRONG = 'a sturdy passphrase 42';

describe('sign-up', () => {
  it('e-mails a verify_email code; the account signs in only once the code confirms the address', async () => {
    const email = `new-${Date.now()}@example.test`;
    const inbox = sg.inbox(email);
    const reply = await register({ email, password: STRONG, nickname: 'Newcomer' });
    expect(reply.status).toBe(202);
    expect(Object.keys(reply.json.data).sort()).toEqual(['cooldown_seconds', 'expires_at']);
    const code = await inbox.nextCode();
    expectFailure(
      await api(sg.gw, 'POST', '/auth/login', { body: { identifier: email, password: STRONG } }),
      403,
      'email_unverified',
    );
    expectFailure(
      await api(sg.gw, 'POST', '/auth/register/confirm', { body: { email, code: wrongCode(code), password: STRONG } }),
      400,
      'verification_invalid',
    );
    const confirmed = await api(sg.gw, 'POST', '/auth/register/confirm', { body: { email, code, password: STRONG } });
    expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(201);
    expect(confirmed.json.data.user).toMatchObject({ email, nickname: 'Newcomer', has_password: true });
    expect((await signIn(sg.gw, email, STRONG)).token).toMatch(/^gws_/);
    expectFailure(
      await api(sg.gw, 'POST', '/auth/register/confirm', { body: { email, code, password: STRONG } }),
      400,
      'verification_invalid',
    );
  });

  it('answers a taken e-mail the same way, mailing its owner a notice instead of a code', async () => {
    const existing = await sg.gw.account();
    const inbox = sg.inbox(existing.email);
    const reply = await register({ email: existing.email, password: STRONG });
    expect(reply.status).toBe(202);
    expect(Object.keys(reply.json.data).sort()).toEqual(['cooldown_seconds', 'expires_at']);
    const mail = await inbox.next();
    expect(mail).toMatch(/Subject: Someone tried to sign up with your address/);
    expect(mailBody(mail)).not.toMatch(/\b\d{8}\b/);
    // The owner's password is untouched.
    expect((await signIn(sg.gw, existing.email)).token).toMatch(/^gws_/);
  });

  it('validates the password and the body', async () => {
    expectFailure(
      await register({ email: 'weak@example.test', password: 'password' }),
      400,
      'weak_password',
      /password/,
    );
    expectFailure(await register({ email: 'no-at-sign', password: STRONG }), 400, 'invalid_request', /email/);
    expectFailure(
      await register({ email: 'x@example.test', password: STRONG, admin: true }),
      400,
      'invalid_json',
      /admin/,
    );
  });
});

describe('sessions', () => {
  it("lists the live sessions, marks the current one, and revokes one; another user's is not found", async () => {
    const s = await userSession(sg.gw);
    const second = await signIn(sg.gw, s.email, 'password123', { 'user-agent': 'second-device/1.0' });
    const list = await api(sg.gw, 'GET', '/auth/sessions', { token: s.token });
    expect(list.json.data).toHaveLength(2);
    const other = list.json.data.find((x: { current: boolean }) => !x.current);
    expect(other).toMatchObject({ user_agent: 'second-device/1.0', id: expect.any(String) });
    const stranger = await userSession(sg.gw);
    expectFailure(
      await api(sg.gw, 'POST', `/auth/sessions/${other.id}/revoke`, { token: stranger.token }),
      404,
      'not_found',
    );
    expect((await api(sg.gw, 'POST', `/auth/sessions/${other.id}/revoke`, { token: s.token })).status).toBe(204);
    expectFailure(await api(sg.gw, 'GET', '/auth/me', { token: second.token }), 401, 'unauthorized');
    expect((await api(sg.gw, 'GET', '/auth/sessions', { token: s.token })).json.data).toHaveLength(1);
  });
});

describe('closing an account', () => {
  it('revokes its keys and sessions, keeps its ledger, and frees the e-mail', async () => {
    const s = await userSession(sg.gw);
    const inbox = sg.inbox(s.email);
    expect((await modelsWith(sg.gw, s.key)).status).toBe(200);
    await api(sg.gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'close_account' } });
    const closed = await api(sg.gw, 'POST', '/auth/account/close', {
      token: s.token,
      body: { password: 'password123', code: await inbox.nextCode() },
    });
    expect(closed.status, JSON.stringify(closed.json)).toBe(204);
    expectFailure(await api(sg.gw, 'GET', '/auth/me', { token: s.token }), 401, 'unauthorized');
    const deadline = Date.now() + 5_000;
    while ((await modelsWith(sg.gw, s.key)).status !== 401 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect((await modelsWith(sg.gw, s.key)).status).toBe(401);
    expectFailure(
      await api(sg.gw, 'POST', '/auth/login', { body: { identifier: s.email, password: 'password123' } }),
      401,
      'invalid_credentials',
    );
    const row = await sg.gw.services.db
      .selectFrom('users')
      .select(['closed_at', 'email'])
      .where('id', '=', s.userId)
      .executeTakeFirstOrThrow();
    expect(row.closed_at).toBeInstanceOf(Date);
    expect(row.email).not.toBe(s.email);
    // The address can sign up again.
    const again = sg.inbox(s.email);
    expect((await register({ email: s.email, password: STRONG })).status).toBe(202);
    expect(await again.nextCode()).toMatch(/^\d{8}$/);
  });
});

describe('CSRF and CORS', () => {
  const raw = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${sg.gw.url}/api/v1${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('refuses a cookie-authenticated change without the console Origin; allows it with; bearer needs none', async () => {
    const s = await userSession(sg.gw);
    const patch = (headers: Record<string, string>) => raw('PATCH', '/auth/me', headers, { nickname: 'x' });
    const noOrigin = await patch({ cookie: s.cookie });
    expect(noOrigin.status).toBe(403);
    expect(((await noOrigin.json()) as { error_code: string }).error_code).toBe('csrf_rejected');
    expect((await patch({ cookie: s.cookie, origin: 'https://evil.example.test' })).status).toBe(403);
    const fromConsole = await patch({ cookie: s.cookie, origin: CONSOLE });
    expect(fromConsole.status).toBe(200);
    expect(fromConsole.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(fromConsole.headers.get('access-control-allow-credentials')).toBe('true');
    expect((await patch({ authorization: `Bearer ${s.token}` })).status).toBe(200);
    // Reads need no Origin.
    expect((await raw('GET', '/auth/me', { cookie: s.cookie })).status).toBe(200);
    // A sign-in posted from a foreign page is refused (login CSRF).
    expect(
      (
        await raw(
          'POST',
          '/auth/login',
          { origin: 'https://evil.example.test' },
          { identifier: s.email, password: 'password123' },
        )
      ).status,
    ).toBe(403);
  });

  it('answers preflights for the console origin only', async () => {
    const preflight = (origin: string) =>
      raw('OPTIONS', '/auth/me', {
        origin,
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'content-type',
      });
    const ok = await preflight(CONSOLE);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(ok.headers.get('access-control-allow-methods')).toMatch(/PATCH/);
    const foreign = await preflight('https://evil.example.test');
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});
