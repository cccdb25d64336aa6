import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_MAX_ATTEMPTS } from '../../shared/console/codes.js';
import { api, userSession } from '../console/helpers.js';
import { startSecurityGateway, wrongCode, type SecurityGateway } from '../console/security-gateway.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// L2: a code's tries were counted read-then-write, and so was the account lock: parallel guesses
// all read "not yet exhausted / not locked" and were all checked (40 parallel guesses recorded 7
// tries against a cap of 5; every parallel wrong password ran before the lock was set).
let sg: SecurityGateway;
let locking: TestGateway;
beforeAll(async () => {
  // The account lock out of the way of the code's own cap here; a gateway with a lock of 10 below.
  [sg, locking] = await Promise.all([
    startSecurityGateway({ env: { ACCOUNT_LOCK_THRESHOLD: '1000' } }),
    startTestGateway({ env: { ACCOUNT_LOCK_THRESHOLD: '10' } }),
  ]);
});
afterAll(async () => {
  await sg?.close();
  await locking?.close();
});

const STRONG = 'a sturdy passphrase 42';
const PARALLEL = 40;

describe('L2: tries are counted atomically', () => {
  it('40 parallel guesses at a sign-up code are CODE_MAX_ATTEMPTS tries, no more; then even the right code fails', async () => {
    const email = `race-${Date.now()}@example.test`;
    const inbox = sg.inbox(email);
    await api(sg.gw, 'POST', '/auth/register', { body: { email, password: STRONG } });
    const code = await inbox.nextCode();
    const confirm = (c: string) =>
      api(sg.gw, 'POST', '/auth/register/confirm', { body: { email, code: c, password: STRONG } });
    const replies = await Promise.all(Array.from({ length: PARALLEL }, () => confirm(wrongCode(code))));
    expect(replies.every((r) => r.json.error_code === 'verification_invalid')).toBe(true);
    const row = await sg.gw.services.db
      .selectFrom('verification_codes as c')
      .innerJoin('users as u', 'u.id', 'c.user_id')
      .select(['c.attempts', 'c.used_at'])
      .where('u.email', '=', email)
      .where('c.action', '=', 'verify_email')
      .executeTakeFirstOrThrow();
    expect(row.attempts).toBe(CODE_MAX_ATTEMPTS);
    expect(row.used_at).toBeNull();
    expect((await confirm(code)).json.error_code).toBe('verification_invalid');
  });

  it('40 parallel wrong passwords run at most ACCOUNT_LOCK_THRESHOLD checks before the account locks', async () => {
    const s = await userSession(locking);
    const replies = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        api(locking, 'POST', '/auth/login', { body: { identifier: s.email, password: 'wrong-password' } }),
      ),
    );
    const checked = replies.filter((r) => r.json.error_code === 'invalid_credentials').length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(10);
    expect(replies.filter((r) => r.json.error_code === 'account_locked')).toHaveLength(PARALLEL - checked);
    // And the account is locked now, the right password included.
    expect(
      (await api(locking, 'POST', '/auth/login', { body: { identifier: s.email, password: 'password123' } })).json
        .error_code,
    ).toBe('account_locked');
  });
});
