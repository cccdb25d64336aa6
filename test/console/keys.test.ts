import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { api, expectFailure, modelsWith, userSession } from './helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

const everyField = {
  name: 'ci runner',
  expires_at: '2099-01-02T03:04:05.000Z',
  group: 'basic',
  ip_allowlist: ['127.0.0.1', '10.0.0.0/8'],
  asset_access: 'none',
  compatibility_profile: 'standard_v1',
  rpm_limit: 60,
  tpm_limit: 100_000,
  concurrency_limit: 4,
  total_micro_usd: 50_000_000,
  daily_micro_usd: 1_000_000,
  monthly_micro_usd: 20_000_000,
  budget: { limit_micro_usd: 5_000_000, period: 'week', soft_threshold_percent: 80 },
  tags: ['ci', 'team-a'],
  usage_access: true,
  default_preset: 'support-bot',
  cache_ttl_seconds: 300,
};

describe('POST /api/v1/keys', () => {
  it('stores every field, returns the full key once, and the key works on the gateway', async () => {
    const s = await userSession(gw);
    const created = await api(gw, 'POST', '/keys', { token: s.token, body: everyField });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const { key, ...view } = created.json.data;
    expect(view).toEqual({
      ...everyField,
      ip_allowlist: ['127.0.0.1/32', '10.0.0.0/8'], // canonical CIDR form
      id: expect.any(String),
      prefix: key.slice(0, 8),
      last4: key.slice(-4),
      status: 'active',
      created_at: expect.any(String),
    });
    expect(key).toMatch(/^sk-[0-9A-Za-z]{48}$/);

    const got = await api(gw, 'GET', `/keys/${view.id}`, { cookie: s.cookie });
    expect(got.json).toEqual({ data: view, request_id: got.headers.get('x-request-id') });
    const listed = await api(gw, 'GET', '/keys', { token: s.token });
    expect(listed.json.list).toContainEqual(view);
    expect(JSON.stringify(listed.json)).not.toContain(key);

    const models = await modelsWith(gw, key);
    expect(models.status).toBe(200);
    expect(models.json.data.map((m: { id: string }) => m.id).sort()).toEqual(['free-sim', 'gpt-sim']); // group 'basic'
  });

  it('creates private-protocol ak- keys, and refuses legacy_v1 (migrated keys only)', async () => {
    const s = await userSession(gw);
    const created = await api(gw, 'POST', '/keys', { token: s.token, body: { kind: 'private', name: 'server side' } });
    expect(created.status).toBe(201);
    expect(created.json.data.key).toMatch(/^ak-[0-9A-Za-z]{48}$/);
    expect(created.json.data.prefix).toBe(created.json.data.key.slice(0, 8));
    expectFailure(
      await api(gw, 'POST', '/keys', { token: s.token, body: { compatibility_profile: 'legacy_v1' } }),
      400,
      'invalid_request',
      /key:import/,
    );
    expectFailure(await api(gw, 'POST', '/keys', { token: s.token, body: { kind: 'admin' } }), 400, 'invalid_request');
  });

  it('applies the defaults for an empty body', async () => {
    const s = await userSession(gw);
    const created = await api(gw, 'POST', '/keys', { token: s.token });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({
      name: '',
      expires_at: null,
      group: 'default',
      ip_allowlist: [],
      asset_access: 'own',
      compatibility_profile: 'standard_v1',
      rpm_limit: null,
      total_micro_usd: null,
      tags: [],
      usage_access: false,
    });
  });

  it('refuses an unknown group and a past expiry, naming the field', async () => {
    const s = await userSession(gw);
    // An unknown group answers like an operator-only one: the console does not tell which groups exist.
    expectFailure(
      await api(gw, 'POST', '/keys', { token: s.token, body: { group: 'nope' } }),
      403,
      'group_not_allowed',
      /'nope'/,
    );
    const past = await api(gw, 'POST', '/keys', { token: s.token, body: { expires_at: '2001-01-01T00:00:00Z' } });
    expectFailure(past, 400, 'invalid_request');
    const profile = await api(gw, 'POST', '/keys', { token: s.token, body: { compatibility_profile: 'v9' } });
    expectFailure(profile, 400, 'invalid_request', /compatibility_profile/);
  });
});

describe('GET /api/v1/keys', () => {
  it('pages the user’s own keys, newest first', async () => {
    const s = await userSession(gw); // gw.account() made one key already
    await userSession(gw); // another user's key is never counted
    for (const name of ['k1', 'k2', 'k3', 'k4']) await api(gw, 'POST', '/keys', { token: s.token, body: { name } });

    const first = await api(gw, 'GET', '/keys?page_size=2', { token: s.token });
    expect(first.json).toEqual({
      list: expect.any(Array),
      total: 5,
      page: 1,
      page_size: 2,
      request_id: first.headers.get('x-request-id'),
    });
    expect(first.json.list.map((k: { name: string }) => k.name)).toEqual(['k4', 'k3']);
    const third = await api(gw, 'GET', '/keys?page=3&page_size=2', { token: s.token });
    expect(third.json.list.map((k: { id: string }) => k.id)).toEqual([s.keyId]);
    const beyond = await api(gw, 'GET', '/keys?page=4&page_size=2', { token: s.token });
    expect(beyond.json).toMatchObject({ list: [], total: 5, page: 4 });
    const defaults = await api(gw, 'GET', '/keys', { token: s.token });
    expect(defaults.json).toMatchObject({ total: 5, page: 1, page_size: 20 });
    expect(defaults.json.list).toHaveLength(5);
  });

  it('answers 400 naming the field for a bad page or page_size', async () => {
    const s = await userSession(gw);
    for (const [query, field] of [
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
      ['page=', 'page'],
      ['page_size=0', 'page_size'],
      ['page_size=101', 'page_size'],
      ['page_size=1.5', 'page_size'],
      ['page_size=1&page_size=2', 'page_size'],
    ]) {
      expectFailure(
        await api(gw, 'GET', `/keys?${query}`, { token: s.token }),
        400,
        'invalid_request',
        new RegExp(`'${field}'`),
      );
    }
  });
});
