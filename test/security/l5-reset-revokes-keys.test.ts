import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, modelsWith } from '../console/helpers.js';
import { startSecurityGateway, type SecurityGateway } from '../console/security-gateway.js';

// L5 (the reset half): API keys survived a password reset, so whoever had taken the account and
// made keys kept using them after the owner reset the password.
let sg: SecurityGateway;
beforeAll(async () => {
  sg = await startSecurityGateway({ env: { CAPTCHA_TEST_TOKEN: 'dev-token' } });
});
afterAll(() => sg?.close());

const NEW_PASSWORD = 'a fresh start for me 7';

async function resetCode(email: string): Promise<string> {
  const inbox = sg.inbox(email);
  expect(
    (await api(sg.gw, 'POST', '/auth/password/reset/request', { body: { email, captcha_token: 'dev-token' } })).status,
  ).toBe(202);
  return inbox.nextCode();
}

async function waitForStatus(key: string, status: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while ((await modelsWith(sg.gw, key)).status !== status) {
    if (Date.now() > deadline) throw new Error(`the key never answered ${status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('L5: a password reset revokes the API keys unless asked not to', () => {
  it('by default every key of the account is revoked, at once on the gateway', async () => {
    const acct = await sg.gw.account();
    const keys = await sg.gw.services.db
      .selectFrom('api_keys')
      .select('id')
      .where('user_id', '=', acct.userId)
      .execute();
    expect((await modelsWith(sg.gw, acct.key)).status).toBe(200); // cached on the gateway now
    const code = await resetCode(acct.email);
    const reset = await api(sg.gw, 'POST', '/auth/password/reset/confirm', {
      body: { email: acct.email, code, new_password: NEW_PASSWORD },
    });
    expect(reset.status, JSON.stringify(reset.json)).toBe(204);
    await waitForStatus(acct.key, 401);
    const rows = await sg.gw.services.db
      .selectFrom('api_keys')
      .select(['status', 'revoked_at'])
      .where('user_id', '=', acct.userId)
      .execute();
    expect(rows).toHaveLength(keys.length);
    for (const row of rows) expect(row).toMatchObject({ status: 'revoked', revoked_at: expect.any(Date) });
  });

  it('`revoke_api_keys: false` keeps them', async () => {
    const acct = await sg.gw.account();
    const code = await resetCode(acct.email);
    const reset = await api(sg.gw, 'POST', '/auth/password/reset/confirm', {
      body: { email: acct.email, code, new_password: NEW_PASSWORD, revoke_api_keys: false },
    });
    expect(reset.status, JSON.stringify(reset.json)).toBe(204);
    expect((await modelsWith(sg.gw, acct.key)).status).toBe(200);
    const row = await sg.gw.services.db
      .selectFrom('api_keys')
      .select('status')
      .where('id', '=', acct.keyId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('active');
  });
});
