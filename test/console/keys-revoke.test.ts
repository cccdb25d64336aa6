import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { api, expectFailure, modelsWith, userSession } from './helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

describe('POST /api/v1/keys/{id}/revoke', () => {
  it('revokes the key, and the gateway refuses it within a second', async () => {
    const s = await userSession(gw);
    expect((await modelsWith(gw, s.key)).status).toBe(200); // now cached in the gateway process
    const revoked = await api(gw, 'POST', `/keys/${s.keyId}/revoke`, { cookie: s.cookie }); // no body
    expect(revoked.status).toBe(200);
    expect(revoked.json).toEqual({
      data: expect.objectContaining({ id: s.keyId, status: 'revoked' }),
      request_id: revoked.headers.get('x-request-id'),
    });
    expect(revoked.json.data).not.toHaveProperty('key');

    await expect.poll(async () => (await modelsWith(gw, s.key)).status, { timeout: 1_000, interval: 50 }).toBe(401);
    expect((await modelsWith(gw, s.key)).json.error.code).toBe('invalid_api_key');
  });

  it('answers the same view when revoked twice', async () => {
    const s = await userSession(gw);
    const first = await api(gw, 'POST', `/keys/${s.keyId}/revoke`, { token: s.token, body: {} });
    const second = await api(gw, 'POST', `/keys/${s.keyId}/revoke`, { token: s.token });
    expect(second.status).toBe(200);
    expect(second.json.data).toEqual(first.json.data);
    const row = await gw.services.db
      .selectFrom('api_keys')
      .select(['status', 'revoked_at'])
      .where('id', '=', s.keyId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('revoked');
    expect(row.revoked_at).toBeInstanceOf(Date);
  });
});

describe('user scoping', () => {
  it('answers 404 for another user’s key on GET, PATCH and revoke, and leaves it untouched', async () => {
    const owner = await userSession(gw);
    const other = await userSession(gw);
    const path = `/keys/${owner.keyId}`;
    expectFailure(await api(gw, 'GET', path, { token: other.token }), 404, 'not_found');
    expectFailure(await api(gw, 'PATCH', path, { token: other.token, body: { name: 'stolen' } }), 404, 'not_found');
    expectFailure(await api(gw, 'POST', `${path}/revoke`, { token: other.token }), 404, 'not_found');

    const mine = await api(gw, 'GET', path, { token: owner.token });
    expect(mine.json.data).toMatchObject({ name: '', status: 'active' });
    expect((await modelsWith(gw, owner.key)).status).toBe(200);
  });

  it('answers 404 for a malformed or unknown key id', async () => {
    const s = await userSession(gw);
    for (const id of ['not-a-uuid', '123', `${s.keyId}x`, '00000000-0000-0000-0000-000000000000']) {
      expectFailure(await api(gw, 'GET', `/keys/${id}`, { token: s.token }), 404, 'not_found');
      expectFailure(await api(gw, 'PATCH', `/keys/${id}`, { token: s.token, body: {} }), 404, 'not_found');
      expectFailure(await api(gw, 'POST', `/keys/${id}/revoke`, { token: s.token }), 404, 'not_found');
    }
  });

  it('requires a session on every key route', async () => {
    const s = await userSession(gw);
    expectFailure(await api(gw, 'GET', '/keys'), 401, 'unauthorized');
    expectFailure(await api(gw, 'POST', '/keys', { body: {} }), 401, 'unauthorized');
    expectFailure(await api(gw, 'GET', `/keys/${s.keyId}`), 401, 'unauthorized');
    expectFailure(await api(gw, 'PATCH', `/keys/${s.keyId}`, { body: {} }), 401, 'unauthorized');
    expectFailure(await api(gw, 'POST', `/keys/${s.keyId}/revoke`), 401, 'unauthorized');
    expect((await modelsWith(gw, s.key)).status).toBe(200);
  });
});
