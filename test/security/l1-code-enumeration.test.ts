import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Reply } from '../console/helpers.js';
import { startSecurityGateway, wrongCode, type SecurityGateway } from '../console/security-gateway.js';

// L1: after five wrong codes an address with a live code answered `verification_exhausted`, while
// an unknown (or, for sign-up, an already confirmed) address kept answering `verification_invalid`:
// guessing codes told which addresses have a pending sign-up or an account.
let sg: SecurityGateway;
beforeAll(async () => {
  // The account lock would answer for every address alike past its threshold: out of the way here.
  sg = await startSecurityGateway({ env: { CAPTCHA_TEST_TOKEN: 'dev-token', ACCOUNT_LOCK_THRESHOLD: '1000' } });
});
afterAll(() => sg?.close());

const STRONG = 'a sturdy passphrase 42';
const shape = (r: Reply) => ({ status: r.status, body: { ...r.json, request_id: undefined } });

/** Eight wrong tries per address, interleaved; every address's n-th answer must equal the others'. */
async function expectAlike(
  send: (email: string, code: string) => Promise<Reply>,
  addresses: { email: string; code: string }[],
): Promise<void> {
  for (let i = 0; i < 8; i++) {
    const replies = [];
    for (const a of addresses) replies.push(shape(await send(a.email, wrongCode(a.code))));
    for (const reply of replies.slice(1)) expect(reply, `try ${i + 1}`).toEqual(replies[0]);
    expect(replies[0]!.body.error_code).toBe('verification_invalid');
  }
}

describe('L1: wrong codes answer alike for every address', () => {
  it('sign-up confirmation: a pending sign-up, an unknown address and a confirmed account', async () => {
    const pending = `pending-${Date.now()}@example.test`;
    const inbox = sg.inbox(pending);
    expect((await api(sg.gw, 'POST', '/auth/register', { body: { email: pending, password: STRONG } })).status).toBe(
      202,
    );
    const code = await inbox.nextCode();
    const confirmed = await sg.gw.account();
    const confirm = (email: string, c: string) =>
      api(sg.gw, 'POST', '/auth/register/confirm', { body: { email, code: c, password: STRONG } });
    await expectAlike(confirm, [
      { email: pending, code },
      { email: `unknown-${Date.now()}@example.test`, code },
      { email: confirmed.email, code },
    ]);
  });

  it('password reset confirmation: an account with a reset code and an unknown address', async () => {
    const account = await sg.gw.account();
    const inbox = sg.inbox(account.email);
    expect(
      (
        await api(sg.gw, 'POST', '/auth/password/reset/request', {
          body: { email: account.email, captcha_token: 'dev-token' },
        })
      ).status,
    ).toBe(202);
    const code = await inbox.nextCode();
    const confirm = (email: string, c: string) =>
      api(sg.gw, 'POST', '/auth/password/reset/confirm', { body: { email, code: c, new_password: STRONG } });
    await expectAlike(confirm, [
      { email: account.email, code },
      { email: `unknown-${Date.now()}@example.test`, code },
    ]);
    // The code is dead all the same: past the tries, even the right one fails.
    const late = await confirm(account.email, code);
    expect(late.json.error_code).toBe('verification_invalid');
  });
});
