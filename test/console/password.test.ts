import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../shared/accounts/passwords.js';
import { parseConfig } from '../../shared/config.js';
import { startSession } from '../../shared/console/sessions.js';
import { offsetClock } from '../support/gateway.js';
import { api, expectFailure, signIn, userSession } from './helpers.js';
import { startSecurityGateway, wrongCode, type SecurityGateway } from './security-gateway.js';

// Password change, reset (with a real siteverify captcha server on loopback) and the password rules.
const clock = offsetClock();
let sg: SecurityGateway;
let captcha: Server;
const verifications: URLSearchParams[] = [];

beforeAll(async () => {
  captcha = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      verifications.push(form);
      const success =
        req.headers['content-type'] === 'application/x-www-form-urlencoded' &&
        form.get('secret') === 'captcha-secret' &&
        form.get('response') === 'solved';
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ success, 'error-codes': success ? [] : ['invalid-input-response'] }));
    });
  });
  await new Promise<void>((resolve) => captcha.listen(0, '127.0.0.1', resolve));
  const verifyUrl = `http://127.0.0.1:${(captcha.address() as AddressInfo).port}/siteverify`;
  sg = await startSecurityGateway({ clock, env: { CAPTCHA_VERIFY_URL: verifyUrl, CAPTCHA_SECRET: 'captcha-secret' } });
});
afterAll(async () => {
  await sg?.close();
  await new Promise((resolve) => captcha?.close(resolve));
});

type Session = Awaited<ReturnType<typeof userSession>>;

async function codeFor(s: Session, action: string): Promise<string> {
  const inbox = sg.inbox(s.email);
  expect((await api(sg.gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action } })).status).toBe(202);
  return inbox.nextCode();
}

const change = (s: { token: string }, body: Record<string, unknown>) =>
  api(sg.gw, 'POST', '/auth/password/change', { token: s.token, body });
const STRONG = 'correct horse battery staple';

describe('password change', () => {
  it('refuses weak passwords: short, long, common, or containing the e-mail name', async () => {
    const s = await userSession(sg.gw);
    const code = await codeFor(s, 'change_password');
    const local = s.email.split('@')[0]!;
    for (const weak of ['short1!', 'x'.repeat(129), 'qwerty123', 'iloveyou', `My-${local}-2026!`]) {
      expectFailure(
        await change(s, { current_password: 'password123', new_password: weak, code }),
        400,
        'weak_password',
        /new_password/,
      );
    }
    // The code was not spent on refusals.
    expect((await change(s, { current_password: 'password123', new_password: STRONG, code })).status).toBe(204);
  });

  it('refuses the current password as the new one without spending the code', async () => {
    const s = await userSession(sg.gw);
    const code = await codeFor(s, 'change_password');
    await sg.gw.services.db
      .updateTable('users')
      .set({ password_hash: await hashPassword(STRONG) })
      .where('id', '=', s.userId)
      .execute();
    expectFailure(await change(s, { current_password: STRONG, new_password: STRONG, code }), 400, 'password_reused');
    expectFailure(
      await change(s, { current_password: 'password123', new_password: 'another fine passphrase', code }),
      403,
      'invalid_password',
    );
    expect((await change(s, { current_password: STRONG, new_password: 'another fine passphrase', code })).status).toBe(
      204,
    );
  });

  it('revokes every other session (an old bearer token answers 401) and keeps this one', async () => {
    const s = await userSession(sg.gw);
    const other = await signIn(sg.gw, s.email);
    const code = await codeFor(s, 'change_password');
    expect((await change(s, { current_password: 'password123', new_password: STRONG, code })).status).toBe(204);
    expectFailure(await api(sg.gw, 'GET', '/auth/me', { token: other.token }), 401, 'unauthorized');
    expect((await api(sg.gw, 'GET', '/auth/me', { token: s.token })).status).toBe(200);
    expectFailure(
      await api(sg.gw, 'POST', '/auth/login', { body: { identifier: s.email, password: 'password123' } }),
      401,
      'invalid_credentials',
    );
    expect((await signIn(sg.gw, s.email, STRONG)).token).toMatch(/^gws_/);
  });

  it('a password-less account sets its first password with the code alone', async () => {
    const account = await sg.gw.account();
    await sg.gw.services.db
      .updateTable('users')
      .set({ password_hash: null })
      .where('id', '=', account.userId)
      .execute();
    const session = await startSession(sg.gw.services.db, account.userId, 1, { ip: null, userAgent: null });
    const s = { ...account, token: session.token } as unknown as Session;
    const code = await codeFor(s, 'change_password');
    expect((await change(s, { new_password: STRONG, code })).status).toBe(204);
    expect((await api(sg.gw, 'GET', '/auth/me', { token: session.token })).json.data.has_password).toBe(true);
    expect((await signIn(sg.gw, account.email, STRONG)).token).toMatch(/^gws_/);
  });
});

describe('password reset', () => {
  const request = (email: string, captcha_token = 'solved') =>
    api(sg.gw, 'POST', '/auth/password/reset/request', { body: { email, captcha_token } });

  it('checks the captcha with the siteverify protocol', async () => {
    const before = verifications.length;
    expectFailure(await request('someone@example.test', 'robot'), 400, 'captcha_invalid', /captcha_token/);
    const sent = verifications[before]!;
    expect(Object.fromEntries(sent)).toEqual({
      secret: 'captcha-secret',
      response: 'robot',
      remoteip: expect.stringMatching(/127\.0\.0\.1/),
    });
  });

  it('answers the same for known and unknown e-mails, in comparable time; only the account owner gets a code', async () => {
    const s = await userSession(sg.gw);
    const inbox = sg.inbox(s.email);
    const known = await request(s.email);
    const unknown = await request(`nobody-${Date.now()}@example.test`);
    for (const reply of [known, unknown]) {
      expect(reply.status).toBe(202);
      expect(Object.keys(reply.json.data).sort()).toEqual(['cooldown_seconds', 'expires_at']);
      expect(reply.json.data.cooldown_seconds).toBe(60);
    }
    expect(await inbox.nextCode()).toMatch(/^\d{8}$/);
    // Within the cooldown the answer stays the same and no second code is made.
    expect((await request(s.email)).status).toBe(202);
    const codes = await sg.gw.services.db
      .selectFrom('verification_codes')
      .select('id')
      .where('user_id', '=', s.userId)
      .where('action', '=', 'reset_password')
      .execute();
    expect(codes).toHaveLength(1);

    const timings = { known: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < 8; i++) {
      for (const [kind, email] of [
        ['known', s.email],
        ['unknown', `nobody-${i}@example.test`],
      ] as const) {
        const started = performance.now();
        expect((await request(email)).status).toBe(202);
        timings[kind].push(performance.now() - started);
      }
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    expect(Math.abs(median(timings.known) - median(timings.unknown))).toBeLessThan(
      Math.max(15, 0.5 * median(timings.unknown)),
    );
  });

  it('confirms with the code: 204, the new password works and every session is revoked', async () => {
    const s = await userSession(sg.gw);
    clock.advance(61_000);
    const inbox = sg.inbox(s.email);
    await request(s.email);
    const code = await inbox.nextCode();
    const confirm = (email: string, c: string, new_password = STRONG) =>
      api(sg.gw, 'POST', '/auth/password/reset/confirm', { body: { email, code: c, new_password } });
    expectFailure(await confirm(s.email, wrongCode(code)), 400, 'verification_invalid');
    expectFailure(await confirm(`nobody@example.test`, code), 400, 'verification_invalid');
    expectFailure(await confirm(s.email, code, 'qwerty123'), 400, 'weak_password');
    const done = await confirm(s.email, code);
    expect(done.status, JSON.stringify(done.json)).toBe(204);
    expectFailure(await api(sg.gw, 'GET', '/auth/me', { token: s.token }), 401, 'unauthorized');
    expect((await signIn(sg.gw, s.email, STRONG)).token).toMatch(/^gws_/);
    expectFailure(await confirm(s.email, code), 400, 'verification_invalid');
  });

  it('is strict about its bodies', async () => {
    expectFailure(
      await api(sg.gw, 'POST', '/auth/password/reset/request', { body: { email: 'a@b.test' } }),
      400,
      'invalid_request',
      /captcha_token/,
    );
    expectFailure(
      await api(sg.gw, 'POST', '/auth/password/reset/request', { body: { email: 'not-an-email', captcha_token: 'x' } }),
      400,
      'invalid_request',
      /email/,
    );
    expectFailure(
      await api(sg.gw, 'POST', '/auth/password/reset/confirm', {
        body: { email: 'a@b.test', code: '12345678', new_password: STRONG, token: 'x' },
      }),
      400,
      'invalid_json',
      /token/,
    );
  });
});

describe('captcha configuration', () => {
  it('development without a verifier accepts only CAPTCHA_TEST_TOKEN; production refuses that setting', async () => {
    const dev = await startSecurityGateway({ env: { CAPTCHA_TEST_TOKEN: 'dev-token' } });
    try {
      const ask = (captcha_token: string) =>
        api(dev.gw, 'POST', '/auth/password/reset/request', { body: { email: 'x@example.test', captcha_token } });
      expect((await ask('dev-token')).status).toBe(202);
      expectFailure(await ask('dev-token2'), 400, 'captcha_invalid');
    } finally {
      await dev.close();
    }
    expect(() => parseConfig({ NODE_ENV: 'production', CAPTCHA_TEST_TOKEN: 'x' })).toThrow(/CAPTCHA_TEST_TOKEN/);
    expect(() => parseConfig({ CAPTCHA_VERIFY_URL: 'https://captcha.example/siteverify' })).toThrow(/CAPTCHA_SECRET/);
  });
});
