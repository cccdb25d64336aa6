import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSession } from '../../shared/console/sessions.js';
import { offsetClock } from '../support/gateway.js';
import { api, expectFailure, userSession } from './helpers.js';
import { startSecurityGateway, wrongCode, type SecurityGateway } from './security-gateway.js';

// The spec's two-step verification state table, row by row, with codes read from a real SMTP server.
const clock = offsetClock();
let sg: SecurityGateway;

beforeAll(async () => {
  sg = await startSecurityGateway({ clock, env: { ACCOUNT_LOCK_THRESHOLD: '4' } });
});
afterAll(async () => {
  await sg?.close();
});

const login = (email: string, extra: Record<string, string> = {}, path = '/auth/login') =>
  api(sg.gw, 'POST', path, { body: { identifier: email, password: 'password123', ...extra } });

/** A signed-in user with two-step verification turned on (through the API). */
async function withTwoStep() {
  const s = await userSession(sg.gw);
  const inbox = sg.inbox(s.email);
  expect(
    (await api(sg.gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'two_factor' } })).status,
  ).toBe(202);
  const on = await api(sg.gw, 'POST', '/auth/two-factor', {
    token: s.token,
    body: { enabled: true, password: 'password123', code: await inbox.nextCode() },
  });
  expect(on.status, JSON.stringify(on.json)).toBe(200);
  expect(on.json.data).toEqual({ enabled: true });
  return { ...s, inbox };
}

describe('two-step verification', () => {
  it('off → on with the password and a two_factor code, which is consumed; on → off the same way', async () => {
    const s = await userSession(sg.gw);
    const inbox = sg.inbox(s.email);
    expect((await api(sg.gw, 'GET', '/auth/mfa/status', { token: s.token })).json.data).toEqual({ enabled: false });
    await api(sg.gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'two_factor' } });
    const code = await inbox.nextCode();
    expectFailure(
      await api(sg.gw, 'POST', '/auth/two-factor', {
        token: s.token,
        body: { enabled: true, password: 'wrong-password', code },
      }),
      403,
      'invalid_password',
    );
    expectFailure(
      await api(sg.gw, 'POST', '/auth/two-factor', { token: s.token, body: { enabled: true, code } }),
      400,
      'invalid_request',
      /password/,
    );
    expect((await api(sg.gw, 'GET', '/auth/mfa/status', { token: s.token })).json.data).toEqual({ enabled: false });
    expect(
      (
        await api(sg.gw, 'POST', '/auth/two-factor', {
          token: s.token,
          body: { enabled: true, password: 'password123', code },
        })
      ).json.data,
    ).toEqual({ enabled: true });
    expect((await api(sg.gw, 'GET', '/auth/mfa/status', { token: s.token })).json.data).toEqual({ enabled: true });
    // Consumed: the same code cannot turn it off again.
    expectFailure(
      await api(sg.gw, 'POST', '/auth/two-factor', {
        token: s.token,
        body: { enabled: false, password: 'password123', code },
      }),
      400,
      'verification_invalid',
    );

    clock.advance(61_000); // past the send cooldown
    await api(sg.gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'two_factor' } });
    expect(
      (
        await api(sg.gw, 'POST', '/auth/two-factor', {
          token: s.token,
          body: { enabled: false, password: 'password123', code: await inbox.nextCode() },
        })
      ).json.data,
    ).toEqual({ enabled: false });
    expect((await login(s.email)).status).toBe(200);
  });

  it('a password-less account confirms with the code alone', async () => {
    const account = await sg.gw.account();
    await sg.gw.services.db
      .updateTable('users')
      .set({ password_hash: null })
      .where('id', '=', account.userId)
      .execute();
    const session = await startSession(sg.gw.services.db, account.userId, 1, { ip: null, userAgent: null });
    const inbox = sg.inbox(account.email);
    await api(sg.gw, 'POST', '/auth/sensitive-code', { token: session.token, body: { action: 'two_factor' } });
    const on = await api(sg.gw, 'POST', '/auth/two-factor', {
      token: session.token,
      body: { enabled: true, code: await inbox.nextCode() },
    });
    expect(on.json.data).toEqual({ enabled: true });
  });

  it('on: a password sign-in without code answers 401 mfa_required and e-mails a code; resubmitting resends it subject to the cooldown', async () => {
    const s = await withTwoStep();
    const first = await login(s.email);
    expectFailure(first, 401, 'mfa_required');
    expect(first.headers.get('set-cookie')).toBeNull();
    const code = await s.inbox.nextCode();
    // Within the cooldown: the same answer, and no second code is made.
    expectFailure(await login(s.email), 401, 'mfa_required', /recently/);
    const codes = await sg.gw.services.db
      .selectFrom('verification_codes')
      .select('id')
      .where('user_id', '=', s.userId)
      .where('action', '=', 'sign_in')
      .execute();
    expect(codes).toHaveLength(1);
    // A wrong password is still just a wrong password: no code is sent for it.
    expectFailure(
      await api(sg.gw, 'POST', '/auth/login', { body: { identifier: s.email, password: 'not-the-password' } }),
      401,
      'invalid_credentials',
    );

    const done = await login(s.email, { code }, '/auth/login/2fa');
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    expect(done.json.data.token).toMatch(/^gws_/);
    // After the cooldown, resubmitting without a code sends a fresh one.
    clock.advance(61_000);
    expectFailure(await login(s.email), 401, 'mfa_required');
    expect(await s.inbox.nextCode()).toMatch(/^\d{8}$/);
  });

  it('on: a wrong or expired code answers 401 mfa_invalid and counts toward the account lock', async () => {
    const s = await withTwoStep();
    expectFailure(await login(s.email), 401, 'mfa_required');
    const code = await s.inbox.nextCode();
    expectFailure(await login(s.email, { code: wrongCode(code) }, '/auth/login/2fa'), 401, 'mfa_invalid');
    // The code survives one wrong try…
    expect((await login(s.email, { code }, '/auth/login/2fa')).status).toBe(200);
    // …but not its lifetime.
    clock.advance(61_000);
    expectFailure(await login(s.email), 401, 'mfa_required');
    const late = await s.inbox.nextCode();
    clock.advance(11 * 60_000);
    expectFailure(await login(s.email, { code: late }, '/auth/login/2fa'), 401, 'mfa_invalid');
    // Lock threshold 4: the success above cleared the count; expired + 3 wrong = 4 → locked.
    for (let i = 0; i < 3; i++)
      expectFailure(await login(s.email, { code: wrongCode(late) }, '/auth/login/2fa'), 401, 'mfa_invalid');
    const locked = await login(s.email, { code: late }, '/auth/login/2fa');
    expectFailure(locked, 429, 'account_locked');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('the body of /auth/login/2fa is strict and needs every field', async () => {
    expectFailure(
      await api(sg.gw, 'POST', '/auth/login/2fa', { body: { identifier: 'a@b.test', password: 'x' } }),
      400,
      'invalid_request',
      /code/,
    );
    expectFailure(
      await api(sg.gw, 'POST', '/auth/login/2fa', {
        body: { identifier: 'a@b.test', password: 'x', code: '12345678', remember: true },
      }),
      400,
      'invalid_json',
      /remember/,
    );
    expectFailure(
      await api(sg.gw, 'POST', '/auth/login', { body: { identifier: 'a@b.test', password: 'x', code: 'abc' } }),
      400,
      'invalid_request',
      /code/,
    );
  });
});
