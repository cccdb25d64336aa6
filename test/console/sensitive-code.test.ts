import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_MAX_ATTEMPTS, consumeCode } from '../../shared/console/codes.js';
import { startTaskWorkers, type TaskWorkers } from '../../workers/task-workers.js';
import { offsetClock, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { api, expectFailure, userSession } from './helpers.js';
import { mailBody } from './security-gateway.js';

// Codes for sensitive actions, e-mailed through a real SMTP server and read from the mails it got.
const clock = offsetClock();
let smtp: TestSmtp;
let gw: TestGateway;
let workers: TaskWorkers;

beforeAll(async () => {
  smtp = await startSmtp();
  gw = await startTestGateway({ clock, env: { SMTP_URL: smtp.url } });
  workers = startTaskWorkers(gw.services, {
    queues: 'mail',
    concurrency: '',
    maintenanceEveryMs: 60_000,
    staleAfterMs: 60_000,
    graceMs: 1_000,
  });
});
afterAll(async () => {
  await workers?.close();
  await gw?.close();
  await smtp?.close();
});

/** The digits of the newest mail to this address (waits for the mail job). */
async function codeFor(email: string, count: number): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const mails = smtp.inbox.filter((m) => m.to === email);
    if (mails.length >= count) return /\b(\d{8})\b/.exec(mailBody(mails[count - 1]!.data))![1]!;
    if (Date.now() > deadline) throw new Error(`no mail ${count} for ${email}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('POST /api/v1/auth/sensitive-code', () => {
  it('e-mails a single-use code bound to its action, stored as a hash, with a send cooldown', async () => {
    const s = await userSession(gw);
    const email = (await api(gw, 'GET', '/auth/me', { token: s.token })).json.data.email as string;
    const sent = await api(gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'change_password' } });
    expect(sent.status).toBe(202);
    expect(sent.json.data).toMatchObject({ cooldown_seconds: 60, expires_at: expect.any(String) });
    const code = await codeFor(email, 1);
    const stored = await gw.services.db
      .selectFrom('verification_codes')
      .selectAll()
      .where('user_id', '=', s.userId)
      .execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.code_hash.toString('hex')).not.toContain(Buffer.from(code).toString('hex'));

    const again = await api(gw, 'POST', '/auth/sensitive-code', {
      token: s.token,
      body: { action: 'change_password' },
    });
    expectFailure(again, 429, 'verification_cooldown');
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(again.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    // Another action has its own cooldown.
    expect(
      (await api(gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'close_account' } })).status,
    ).toBe(202);

    // A code for one action never confirms another; it works once.
    await expect(consumeCode(gw.services, s.userId, 'close_account', code)).rejects.toMatchObject({
      code: 'verification_invalid',
    });
    await consumeCode(gw.services, s.userId, 'change_password', code);
    await expect(consumeCode(gw.services, s.userId, 'change_password', code)).rejects.toMatchObject({
      code: 'verification_invalid',
    });
  });

  it('expires codes, and kills one after too many wrong tries', async () => {
    const s = await userSession(gw);
    const email = (await api(gw, 'GET', '/auth/me', { token: s.token })).json.data.email as string;
    await api(gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'two_factor' } });
    const first = await codeFor(email, 1);
    clock.advance(11 * 60 * 1000);
    try {
      await expect(consumeCode(gw.services, s.userId, 'two_factor', first)).rejects.toMatchObject({
        code: 'verification_invalid',
      });
      expect(
        (await api(gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'two_factor' } })).status,
      ).toBe(202);
      const second = await codeFor(email, 2);
      const wrong = second === '00000000' ? '00000001' : '00000000';
      for (let i = 1; i < CODE_MAX_ATTEMPTS; i++)
        await expect(consumeCode(gw.services, s.userId, 'two_factor', wrong)).rejects.toMatchObject({
          code: 'verification_invalid',
        });
      await expect(consumeCode(gw.services, s.userId, 'two_factor', wrong)).rejects.toMatchObject({
        code: 'verification_exhausted',
      });
      // Even the right code is dead now: a fresh one is needed.
      await expect(consumeCode(gw.services, s.userId, 'two_factor', second)).rejects.toMatchObject({
        code: 'verification_exhausted',
      });
    } finally {
      clock.set(Date.now());
    }
  });

  it('refuses unknown actions, sign_in on request, undeclared fields and anyone not signed in', async () => {
    const s = await userSession(gw);
    expectFailure(
      await api(gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'sign_in' } }),
      400,
      'invalid_request',
    );
    expectFailure(
      await api(gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'nuke' } }),
      400,
      'invalid_request',
    );
    expectFailure(
      await api(gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'close_account', extra: 1 } }),
      400,
      'invalid_json',
    );
    expectFailure(
      await api(gw, 'POST', '/auth/sensitive-code', { body: { action: 'close_account' } }),
      401,
      'unauthorized',
    );
  });
});
