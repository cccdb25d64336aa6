// L4: a passkey sign-in skips both the password and the two-step code, yet an assertion that only
// proved presence (no user verification: an unlocked security key picked up by someone else) was
// accepted. Now user verification is required, asked for in the options and checked in the
// assertion, and a passkey that cannot verify its user is refused at registration.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../support/authenticator.js';
import { api, expectFailure, userSession } from '../console/helpers.js';
import { startSecurityGateway, type SecurityGateway } from '../console/security-gateway.js';

const ORIGIN = 'https://console.example.test';
let sg: SecurityGateway;

beforeAll(async () => {
  sg = await startSecurityGateway({ env: { WEBAUTHN_ORIGIN: ORIGIN } });
});
afterAll(() => sg?.close());

type Session = Awaited<ReturnType<typeof userSession>>;

async function registrationOptions(s: Session) {
  const inbox = sg.inbox(s.email);
  expect(
    (await api(sg.gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'add_passkey' } })).status,
  ).toBe(202);
  const options = await api(sg.gw, 'POST', '/auth/passkeys/register/options', {
    token: s.token,
    body: { password: 'password123', code: await inbox.nextCode() },
  });
  expect(options.status, JSON.stringify(options.json)).toBe(200);
  return options.json.data as {
    ceremony_id: string;
    options: {
      challenge: string;
      rp: { id?: string };
      user: { id: string };
      authenticatorSelection: Record<string, unknown>;
    };
  };
}

/** A passkey sign-in → the options the browser was given and the sign-in's reply. */
async function signInWith(device: SoftAuthenticator, userVerified: boolean) {
  const options = await api(sg.gw, 'POST', '/auth/passkeys/login/options');
  const response = device.get(options.json.data.options, undefined, { userVerified });
  return {
    options: options.json.data.options,
    reply: await api(sg.gw, 'POST', '/auth/passkeys/login', {
      body: { ceremony_id: options.json.data.ceremony_id, response },
    }),
  };
}

describe('L4: passkeys must verify their user', () => {
  it('an assertion without the UV flag signs nobody in, even for an account with two-step verification', async () => {
    const s = await userSession(sg.gw);
    const device = new SoftAuthenticator(ORIGIN);
    const registration = await registrationOptions(s);
    const created = await api(sg.gw, 'POST', '/auth/passkeys/register', {
      token: s.token,
      body: { ceremony_id: registration.ceremony_id, response: device.create(registration.options) },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const inbox = sg.inbox(s.email);
    await api(sg.gw, 'POST', '/auth/sensitive-code', { token: s.token, body: { action: 'two_factor' } });
    expect(
      (
        await api(sg.gw, 'POST', '/auth/two-factor', {
          token: s.token,
          body: { enabled: true, password: 'password123', code: await inbox.nextCode() },
        })
      ).json.data,
    ).toEqual({ enabled: true });

    const presenceOnly = await signInWith(device, false);
    expectFailure(presenceOnly.reply, 401, 'passkey_invalid', /verify you/);
    expect(presenceOnly.reply.headers.get('set-cookie')).toBeNull();
    // The browser is told to ask for the PIN or biometric.
    expect(presenceOnly.options.userVerification).toBe('required');

    const verified = (await signInWith(device, true)).reply;
    expect(verified.status, JSON.stringify(verified.json)).toBe(200);
    expect(verified.json.data.user.id).toBe(s.userId);
  });

  it('a passkey that cannot verify its user is refused at registration', async () => {
    const s = await userSession(sg.gw);
    const registration = await registrationOptions(s);
    const response = new SoftAuthenticator(ORIGIN).create(registration.options, { userVerified: false });
    expectFailure(
      await api(sg.gw, 'POST', '/auth/passkeys/register', {
        token: s.token,
        body: { ceremony_id: registration.ceremony_id, response },
      }),
      400,
      'passkey_invalid',
    );
    expect((await api(sg.gw, 'GET', '/auth/passkeys', { token: s.token })).json.data).toEqual([]);
    expect(registration.options.authenticatorSelection).toMatchObject({ userVerification: 'required' });
  });
});
