import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { api, expectFailure, userSession } from './helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

describe('strict console bodies', () => {
  it('answer 400 invalid_json naming an undeclared field, on every route with a body', async () => {
    const s = await userSession(gw);
    const login = await api(gw, 'POST', '/auth/login', {
      body: { identifier: s.email, password: 'password123', remember: true },
    });
    expectFailure(login, 400, 'invalid_json', /'remember'/);
    expect(login.headers.get('set-cookie')).toBeNull();
    expectFailure(
      await api(gw, 'POST', '/keys', { token: s.token, body: { name: 'k', scopes: ['all'] } }),
      400,
      'invalid_json',
      /'scopes'/,
    );
    expectFailure(
      // `status` is declared (disable/enable); when a key was revoked is not settable.
      await api(gw, 'PATCH', `/keys/${s.keyId}`, { token: s.token, body: { revoked_at: null } }),
      400,
      'invalid_json',
      /'revoked_at'/,
    );
    expectFailure(
      await api(gw, 'POST', `/keys/${s.keyId}/revoke`, { token: s.token, body: { reason: 'x' } }),
      400,
      'invalid_json',
      /'reason'/,
    );
    expectFailure(
      await api(gw, 'POST', '/auth/logout', { token: s.token, body: { all: true } }),
      400,
      'invalid_json',
      /'all'/,
    );
    // An undeclared field wins over other problems in the same body.
    expectFailure(
      await api(gw, 'POST', '/keys', { token: s.token, body: { rpm_limit: -1, extra: 1 } }),
      400,
      'invalid_json',
      /'extra'/,
    );

    // Nothing was changed by the refused calls.
    expect((await api(gw, 'GET', '/auth/me', { token: s.token })).status).toBe(200);
    const keys = await api(gw, 'GET', '/keys', { token: s.token });
    expect(keys.json.list).toEqual([expect.objectContaining({ id: s.keyId, status: 'active' })]);
  });

  it('answer 400 invalid_json for malformed JSON or a non-object', async () => {
    const s = await userSession(gw);
    for (const raw of ['{"name": ', '{name: "x"}', '[]', '"text"', 'null', ' ']) {
      expectFailure(await api(gw, 'POST', '/keys', { token: s.token, raw }), 400, 'invalid_json');
    }
    expectFailure(await api(gw, 'POST', '/auth/login', { raw: '{"identifier":' }), 400, 'invalid_json');
  });

  it('answer 400 invalid_request naming a missing or mistyped field', async () => {
    const acct = await gw.account();
    expectFailure(
      await api(gw, 'POST', '/auth/login', { body: { identifier: acct.email } }),
      400,
      'invalid_request',
      /'password'/,
    );
    expectFailure(
      await api(gw, 'POST', '/auth/login', { body: { identifier: 42, password: 'x' } }),
      400,
      'invalid_request',
      /'identifier'/,
    );
    expectFailure(await api(gw, 'POST', '/auth/login'), 400, 'invalid_request', /'identifier'/);
  });

  it('refuse a body over 1 MiB', async () => {
    const s = await userSession(gw);
    const reply = await api(gw, 'POST', '/keys', { token: s.token, body: { name: 'x'.repeat(1024 * 1024) } });
    expectFailure(reply, 413, 'body_too_large');
  });
});
