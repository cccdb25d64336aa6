import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectFailure, signIn } from '../console/helpers.js';
import { startSecurityGateway, type SecurityGateway } from '../console/security-gateway.js';

// H2: signing up again with an address that was not confirmed yet overwrote its password, and the
// confirmation needed only `{email, code}`: the owner confirmed with the code from their mailbox,
// and the attacker then signed in with the password the attacker had chosen.
let sg: SecurityGateway;
beforeAll(async () => {
  // A 1-second send cooldown: the attacker's sign-up gets a fresh code mailed to the owner.
  sg = await startSecurityGateway({ env: { VERIFICATION_COOLDOWN_SECONDS: '1' } });
});
afterAll(() => sg?.close());

const OWNER_PASSWORD = 'the owner chose this 1';
const ATTACKER_PASSWORD = 'the attacker chose this 2';
const register = (email: string, password: string) =>
  api(sg.gw, 'POST', '/auth/register', { body: { email, password } });
const passwordHash = async (email: string) =>
  (await sg.gw.services.db.selectFrom('users').select('password_hash').where('email', '=', email).executeTakeFirst())
    ?.password_hash;

describe('H2: a pending registration cannot be taken over by signing up again', () => {
  it("keeps the owner's password and lets the attacker's never sign in, whichever code the owner confirms with", async () => {
    const email = `pending-${Date.now()}@example.test`;
    const inbox = sg.inbox(email);
    expect((await register(email, OWNER_PASSWORD)).status).toBe(202);
    const ownerCode = await inbox.nextCode();
    const ownerHash = await passwordHash(email);
    expect(ownerHash).toBeTruthy();

    // The attacker signs up again with the same address until a fresh code goes out (past the cooldown).
    while (inbox.unread() === 0) {
      expect((await register(email, ATTACKER_PASSWORD)).status).toBe(202);
      await new Promise((r) => setTimeout(r, 250));
    }
    const latestCode = await inbox.nextCode();
    expect(latestCode).not.toBe(ownerCode);
    expect(await passwordHash(email)).toBe(ownerHash);

    // The owner types the newest code from their mailbox, with their own password.
    const confirmed = await api(sg.gw, 'POST', '/auth/register/confirm', {
      body: { email, code: latestCode, password: OWNER_PASSWORD },
    });
    expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(201);
    expectFailure(
      await api(sg.gw, 'POST', '/auth/login', { body: { identifier: email, password: ATTACKER_PASSWORD } }),
      401,
      'invalid_credentials',
    );
    expect((await signIn(sg.gw, email, OWNER_PASSWORD)).token).toMatch(/^gws_/);
  });

  it('requires the password at confirmation, and checks it like any new password', async () => {
    const email = `confirm-${Date.now()}@example.test`;
    const inbox = sg.inbox(email);
    await register(email, OWNER_PASSWORD);
    const code = await inbox.nextCode();
    expectFailure(
      await api(sg.gw, 'POST', '/auth/register/confirm', { body: { email, code } }),
      400,
      'invalid_request',
      /password/,
    );
    expectFailure(
      await api(sg.gw, 'POST', '/auth/register/confirm', { body: { email, code, password: 'password' } }),
      400,
      'weak_password',
      /password/,
    );
    // Neither refusal spent the code.
    expect(
      (await api(sg.gw, 'POST', '/auth/register/confirm', { body: { email, code, password: OWNER_PASSWORD } })).status,
    ).toBe(201);
  });
});
