import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offsetClock } from '../support/gateway.js';
import { startOidc, type TestOidc } from '../support/oidc.js';
import { api, expectFailure, userSession, type Reply } from './helpers.js';
import { startSecurityGateway, type SecurityGateway } from './security-gateway.js';

// Every sensitive action, each with a code of another action, a wrong password, an expired code,
// then its own code (which works once).
const clock = offsetClock();
let oidc: TestOidc;
let sg: SecurityGateway;

beforeAll(async () => {
  oidc = await startOidc();
  sg = await startSecurityGateway({
    clock,
    env: {
      OIDC_PROVIDERS: 'acme',
      OIDC_ACME_ISSUER: oidc.issuer,
      OIDC_ACME_CLIENT_ID: oidc.clientId,
      OIDC_ACME_CLIENT_SECRET: oidc.clientSecret,
    },
  });
  oidc.register([`${sg.gw.url}/api/v1/auth/oauth/acme/callback`]);
});
afterAll(async () => {
  await sg?.close();
  await oidc?.close();
});

type Session = Awaited<ReturnType<typeof userSession>>;

interface ActionCase {
  action: string;
  /** Prepares what the action acts on; returns the call that performs it. */
  setup(s: Session): Promise<(confirm: { password: string; code: string }) => Promise<Reply>>;
  /** The status of a successful call. */
  ok: number;
  /** Whether the action ends the session it was made in. */
  endsSession?: boolean;
  /** The password after the action, when it changes it. */
  passwordAfter?: () => string;
}

const post = (s: Session, path: string, body: Record<string, unknown>) =>
  api(sg.gw, 'POST', path, { token: s.token, body });

const CASES: ActionCase[] = [
  (() => {
    let changes = 0;
    return {
      action: 'change_password',
      ok: 204,
      passwordAfter: () => `a brand new passphrase ${changes}`,
      setup: async (s: Session) => (c: { password: string; code: string }) =>
        post(s, '/auth/password/change', {
          current_password: c.password,
          new_password: `a brand new passphrase ${++changes}`,
          code: c.code,
        }),
    };
  })(),
  { action: 'two_factor', ok: 200, setup: async (s) => (c) => post(s, '/auth/two-factor', { enabled: true, ...c }) },
  { action: 'add_passkey', ok: 200, setup: async (s) => (c) => post(s, '/auth/passkeys/register/options', c) },
  {
    action: 'remove_passkey',
    ok: 204,
    setup: async (s) => {
      const row = await sg.gw.services.db
        .insertInto('passkeys')
        .values({ user_id: s.userId, credential_id: `cred-${s.userId}`, public_key: Buffer.from('not used') })
        .returning('id')
        .executeTakeFirstOrThrow();
      return (c) => post(s, `/auth/passkeys/${row.id}/remove`, c);
    },
  },
  { action: 'link_provider', ok: 200, setup: async (s) => (c) => post(s, '/auth/oauth/acme/link', c) },
  {
    action: 'unlink_provider',
    ok: 204,
    setup: async (s) => {
      await sg.gw.services.db
        .insertInto('user_identities')
        .values({ user_id: s.userId, provider: 'acme', subject: `sub-${s.userId}` })
        .execute();
      return (c) => post(s, '/auth/identities/acme/unlink', c);
    },
  },
  { action: 'close_account', ok: 204, endsSession: true, setup: async (s) => (c) => post(s, '/auth/account/close', c) },
];

describe.each(CASES)('sensitive action $action', ({ action, setup, ok, endsSession, passwordAfter }) => {
  it('needs its own unused, unexpired code and the current password', async () => {
    const s = await userSession(sg.gw);
    const perform = await setup(s);
    const inbox = sg.inbox(s.email);
    const ask = async (a: string) => {
      expect((await post(s, '/auth/sensitive-code', { action: a })).status).toBe(202);
      return inbox.nextCode();
    };
    const otherAction = action === 'two_factor' ? 'close_account' : 'two_factor';
    const foreign = await ask(otherAction);
    expectFailure(await perform({ password: 'password123', code: foreign }), 400, 'verification_invalid');

    const first = await ask(action);
    expectFailure(await perform({ password: 'not-the-password', code: first }), 403, 'invalid_password');
    clock.advance(11 * 60_000); // past the code's lifetime (and the send cooldown)
    expectFailure(await perform({ password: 'password123', code: first }), 400, 'verification_invalid');

    const second = await ask(action);
    const done = await perform({ password: 'password123', code: second });
    expect(done.status, JSON.stringify(done.json)).toBe(ok);
    const again = await perform({ password: passwordAfter?.() ?? 'password123', code: second });
    if (endsSession) expectFailure(again, 401, 'unauthorized');
    else
      expectFailure(
        again,
        action === 'remove_passkey' || action === 'unlink_provider' ? 404 : 400,
        action === 'remove_passkey' || action === 'unlink_provider' ? 'not_found' : 'verification_invalid',
      );
  });
});

describe('sensitive-code', () => {
  it('accepts every action of the spec, withdrawal included, and nothing else', async () => {
    const s = await userSession(sg.gw);
    expect((await post(s, '/auth/sensitive-code', { action: 'withdrawal' })).status).toBe(202);
    for (const action of ['sign_in', 'verify_email', 'reset_password', 'withdraw_commission']) {
      expectFailure(await post(s, '/auth/sensitive-code', { action }), 400, 'invalid_request', /action/);
    }
  });
});
