import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../support/authenticator.js';
import { api, expectFailure, userSession, type Json } from './helpers.js';
import { startSecurityGateway, wrongCode, type SecurityGateway } from './security-gateway.js';

// Passkeys through @simplewebauthn/server, against a software authenticator that makes real
// attestations and signed assertions.
const ORIGIN = 'https://console.example.test';
let sg: SecurityGateway;

beforeAll(async () => {
  sg = await startSecurityGateway({ env: { WEBAUTHN_ORIGIN: ORIGIN, WEBAUTHN_RP_NAME: 'Gateway Tests' } });
});
afterAll(async () => {
  await sg?.close();
});

type Session = Awaited<ReturnType<typeof userSession>>;

async function codeFor(s: Session, action: string): Promise<string> {
  const inbox = sg.inbox(s.email);
  expect((await api(sg.gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action } })).status).toBe(202);
  return inbox.nextCode();
}

/** Adds a passkey to the user through both ceremony steps → the passkey's view. */
async function addPasskey(s: Session, device: SoftAuthenticator, name = 'Laptop'): Promise<Json> {
  const options = await api(sg.gw, 'POST', '/auth/passkeys/register/options', {
    token: s.token,
    body: { password: 'password123', code: await codeFor(s, 'add_passkey') },
  });
  expect(options.status, JSON.stringify(options.json)).toBe(200);
  const created = await api(sg.gw, 'POST', '/auth/passkeys/register', {
    token: s.token,
    body: { ceremony_id: options.json.data.ceremony_id, response: device.create(options.json.data.options), name },
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return created.json.data;
}

async function passkeySignIn(device: SoftAuthenticator, overrides: { origin?: string } = {}) {
  const options = await api(sg.gw, 'POST', '/auth/passkeys/login/options');
  expect(options.status).toBe(200);
  return api(sg.gw, 'POST', '/auth/passkeys/login', {
    body: {
      ceremony_id: options.json.data.ceremony_id,
      response: device.get(options.json.data.options, undefined, overrides),
    },
  });
}

describe('passkeys', () => {
  it('registration needs an add_passkey code; the options name this relying party; the passkey is listed', async () => {
    const s = await userSession(sg.gw);
    const code = await codeFor(s, 'add_passkey');
    expectFailure(
      await api(sg.gw, 'POST', '/auth/passkeys/register/options', {
        token: s.token,
        body: { password: 'password123', code: wrongCode(code) },
      }),
      400,
      'verification_invalid',
    );
    const options = await api(sg.gw, 'POST', '/auth/passkeys/register/options', {
      token: s.token,
      body: { password: 'password123', code },
    });
    expect(options.json.data.options).toMatchObject({
      rp: { id: 'console.example.test', name: 'Gateway Tests' },
      user: { name: s.email },
      attestation: 'none',
    });
    const device = new SoftAuthenticator(ORIGIN);
    const response = device.create(options.json.data.options);
    const created = await api(sg.gw, 'POST', '/auth/passkeys/register', {
      token: s.token,
      body: { ceremony_id: options.json.data.ceremony_id, response, name: 'Phone' },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.data).toMatchObject({
      id: expect.any(String),
      name: 'Phone',
      transports: ['internal'],
      last_used_at: null,
    });
    // A ceremony works once.
    expectFailure(
      await api(sg.gw, 'POST', '/auth/passkeys/register', {
        token: s.token,
        body: { ceremony_id: options.json.data.ceremony_id, response },
      }),
      400,
      'passkey_invalid',
    );
    expect((await api(sg.gw, 'GET', '/auth/passkeys', { token: s.token })).json.data).toEqual([created.json.data]);
  });

  it('refuses an attestation made for another challenge or origin', async () => {
    const s = await userSession(sg.gw);
    const options = await api(sg.gw, 'POST', '/auth/passkeys/register/options', {
      token: s.token,
      body: { password: 'password123', code: await codeFor(s, 'add_passkey') },
    });
    const forged = new SoftAuthenticator('https://evil.example.test').create(options.json.data.options);
    expectFailure(
      await api(sg.gw, 'POST', '/auth/passkeys/register', {
        token: s.token,
        body: { ceremony_id: options.json.data.ceremony_id, response: forged },
      }),
      400,
      'passkey_invalid',
    );
    expect((await api(sg.gw, 'GET', '/auth/passkeys', { token: s.token })).json.data).toEqual([]);
  });

  it('signs in with a passkey without a two-step code, even with two-step verification on', async () => {
    const s = await userSession(sg.gw);
    const device = new SoftAuthenticator(ORIGIN);
    const passkey = await addPasskey(s, device);
    const on = await api(sg.gw, 'POST', '/auth/two-factor', {
      token: s.token,
      body: { enabled: true, password: 'password123', code: await codeFor(s, 'two_factor') },
    });
    expect(on.json.data).toEqual({ enabled: true });
    expectFailure(
      await api(sg.gw, 'POST', '/auth/login', { body: { identifier: s.email, password: 'password123' } }),
      401,
      'mfa_required',
    );

    const signedIn = await passkeySignIn(device);
    expect(signedIn.status, JSON.stringify(signedIn.json)).toBe(200);
    expect(signedIn.json.data.user.id).toBe(s.userId);
    expect(signedIn.headers.get('set-cookie')).toMatch(/gw_session=gws_/);
    const listed = (await api(sg.gw, 'GET', '/auth/passkeys', { token: signedIn.json.data.token })).json.data;
    expect(listed[0]).toMatchObject({ id: passkey.id, last_used_at: expect.any(String) });
    const stored = await sg.gw.services.db
      .selectFrom('passkeys')
      .select('counter')
      .where('id', '=', passkey.id)
      .executeTakeFirstOrThrow();
    expect(stored.counter).toBe(1);
    // A second sign-in moves the counter on.
    expect((await passkeySignIn(device)).status).toBe(200);
  });

  it('refuses an assertion for another origin, a replayed ceremony and an unknown credential alike', async () => {
    const s = await userSession(sg.gw);
    const device = new SoftAuthenticator(ORIGIN);
    await addPasskey(s, device);
    expectFailure(await passkeySignIn(device, { origin: 'https://evil.example.test' }), 401, 'passkey_invalid');

    const options = await api(sg.gw, 'POST', '/auth/passkeys/login/options');
    const assertion = device.get(options.json.data.options);
    expect(
      (
        await api(sg.gw, 'POST', '/auth/passkeys/login', {
          body: { ceremony_id: options.json.data.ceremony_id, response: assertion },
        })
      ).status,
    ).toBe(200);
    expectFailure(
      await api(sg.gw, 'POST', '/auth/passkeys/login', {
        body: { ceremony_id: options.json.data.ceremony_id, response: assertion },
      }),
      401,
      'passkey_invalid',
    );

    const stranger = new SoftAuthenticator(ORIGIN);
    stranger.create({ challenge: 'AAAA', rp: { id: 'console.example.test' }, user: { id: 'nobody' } });
    expectFailure(await passkeySignIn(stranger), 401, 'passkey_invalid');
  });

  it("removal needs a remove_passkey code and the password; another user's passkey is not found", async () => {
    const s = await userSession(sg.gw);
    const device = new SoftAuthenticator(ORIGIN);
    const passkey = await addPasskey(s, device);
    const other = await userSession(sg.gw);
    expectFailure(
      await api(sg.gw, 'POST', `/auth/passkeys/${passkey.id}/remove`, {
        token: other.token,
        body: { password: 'password123', code: '12345678' },
      }),
      404,
      'not_found',
    );
    expectFailure(
      await api(sg.gw, 'POST', '/auth/passkeys/not-a-uuid/remove', {
        token: s.token,
        body: { password: 'password123', code: '12345678' },
      }),
      404,
      'not_found',
    );

    const code = await codeFor(s, 'remove_passkey');
    expectFailure(
      await api(sg.gw, 'POST', `/auth/passkeys/${passkey.id}/remove`, {
        token: s.token,
        body: { password: 'password123', code: await codeFor(s, 'two_factor') },
      }),
      400,
      'verification_invalid',
    );
    const removed = await api(sg.gw, 'POST', `/auth/passkeys/${passkey.id}/remove`, {
      token: s.token,
      body: { password: 'password123', code },
    });
    expect(removed.status, JSON.stringify(removed.json)).toBe(204);
    expect((await api(sg.gw, 'GET', '/auth/passkeys', { token: s.token })).json.data).toEqual([]);
    expectFailure(await passkeySignIn(device), 401, 'passkey_invalid');
  });

  it('validates the ceremony bodies', async () => {
    const s = await userSession(sg.gw);
    expectFailure(
      await api(sg.gw, 'POST', '/auth/passkeys/login', {
        body: { ceremony_id: 'x', response: { id: 'a', rawId: 'a', type: 'password', response: {} } },
      }),
      400,
      'invalid_request',
      /response/,
    );
    expectFailure(
      await api(sg.gw, 'POST', '/auth/passkeys/register', {
        token: s.token,
        body: { ceremony_id: 'x', response: {}, extra: 1 },
      }),
      400,
      'invalid_json',
      /extra/,
    );
    expectFailure(
      await api(sg.gw, 'POST', '/auth/passkeys/login/options', { body: { user: 'x' } }),
      400,
      'invalid_json',
    );
  });
});
