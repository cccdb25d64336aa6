import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { api, expectFailure, modelsWith, userSession } from './helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

async function keyWith(token: string, body: Record<string, unknown>) {
  const created = await api(gw, 'POST', '/keys', { token, body });
  expect(created.status).toBe(201);
  const { key, ...view } = created.json.data;
  return { key: key as string, view };
}

describe('PATCH /api/v1/keys/{id}', () => {
  it('changes the given fields and leaves omitted ones unchanged', async () => {
    const s = await userSession(gw);
    const { view } = await keyWith(s.token, {
      name: 'before',
      rpm_limit: 10,
      tpm_limit: 500,
      tags: ['a'],
      asset_access: 'all',
    });
    const patched = await api(gw, 'PATCH', `/keys/${view.id}`, {
      token: s.token,
      body: { name: 'after', rpm_limit: null, tags: ['b', 'b', 'c'] },
    });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect(patched.json.data).toEqual({ ...view, name: 'after', rpm_limit: null, tags: ['b', 'c'] });
    const got = await api(gw, 'GET', `/keys/${view.id}`, { token: s.token });
    expect(got.json.data).toEqual(patched.json.data);
    const noop = await api(gw, 'PATCH', `/keys/${view.id}`, { token: s.token, body: {} });
    expect(noop.json.data).toEqual(patched.json.data);
  });

  it('takes effect on the gateway at once (cached keys are invalidated)', async () => {
    const s = await userSession(gw);
    const { key, view } = await keyWith(s.token, {});
    expect((await modelsWith(gw, key)).json.data).toHaveLength(4); // group 'default' allows every model
    await api(gw, 'PATCH', `/keys/${view.id}`, { token: s.token, body: { group: 'basic' } });
    await expect
      .poll(async () => (await modelsWith(gw, key)).json.data?.length, { timeout: 1_000, interval: 50 })
      .toBe(2);
  });

  it('refuses the compatibility profile as immutable, whatever its value', async () => {
    const s = await userSession(gw);
    for (const value of ['legacy_v1', 'standard_v1', null, 'nonsense']) {
      const reply = await api(gw, 'PATCH', `/keys/${s.keyId}`, {
        token: s.token,
        body: { name: 'x', compatibility_profile: value },
      });
      expectFailure(reply, 400, 'immutable_field', /compatibility_profile/);
    }
    const got = await api(gw, 'GET', `/keys/${s.keyId}`, { token: s.token });
    expect(got.json.data).toMatchObject({ compatibility_profile: 'standard_v1', name: '' });
  });

  it('answers 400 naming the field for a bad limit, cap, address or type', async () => {
    const s = await userSession(gw);
    const cases: [Record<string, unknown>, string][] = [
      [{ rpm_limit: -1 }, 'rpm_limit'],
      [{ tpm_limit: 1.5 }, 'tpm_limit'],
      [{ concurrency_limit: 'x' }, 'concurrency_limit'],
      [{ daily_micro_usd: -5 }, 'daily_micro_usd'],
      [{ ip_allowlist: ['10.0.0.0/33'] }, 'ip_allowlist[0]'],
      [{ tags: ['ok', 'a,b'] }, 'tags[1]'],
      [{ usage_access: 'yes' }, 'usage_access'],
      [{ asset_access: 'some' }, 'asset_access'],
    ];
    for (const [body, field] of cases) {
      const reply = await api(gw, 'PATCH', `/keys/${s.keyId}`, { token: s.token, body });
      expectFailure(reply, 400, 'invalid_request', new RegExp(`'${field.replace(/[[\]]/g, '\\$&')}'`));
    }
    const got = await api(gw, 'GET', `/keys/${s.keyId}`, { token: s.token });
    expect(got.json.data).toMatchObject({ rpm_limit: null, tpm_limit: null, ip_allowlist: [], tags: [] });
  });

  it('answers 409 for a revoked key', async () => {
    const s = await userSession(gw);
    await api(gw, 'POST', `/keys/${s.keyId}/revoke`, { token: s.token });
    expectFailure(
      await api(gw, 'PATCH', `/keys/${s.keyId}`, { token: s.token, body: { name: 'back' } }),
      409,
      'conflict',
      /revoked/,
    );
  });
});
