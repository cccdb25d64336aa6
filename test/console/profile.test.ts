import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { api, expectFailure, userSession } from './helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

describe('PATCH /api/v1/auth/me', () => {
  it('sets nickname, locale and region, canonicalised; omitted fields stay', async () => {
    const s = await userSession(gw);
    const first = await api(gw, 'PATCH', '/auth/me', {
      token: s.token,
      body: { nickname: '  Ada  ', locale: 'en-us', region: 'gb' },
    });
    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({ id: s.userId, nickname: 'Ada', locale: 'en-US', region: 'GB' });
    const second = await api(gw, 'PATCH', '/auth/me', { cookie: s.cookie, body: { locale: 'zh-Hant-TW' } });
    expect(second.json.data).toMatchObject({ nickname: 'Ada', locale: 'zh-Hant-TW', region: 'GB' });
    expect((await api(gw, 'GET', '/auth/me', { token: s.token })).json.data).toEqual(second.json.data);
  });

  it('refuses bad values by name, undeclared fields, and anyone not signed in', async () => {
    const s = await userSession(gw);
    for (const [body, field] of [
      [{ nickname: '' }, 'nickname'],
      [{ nickname: 'x'.repeat(65) }, 'nickname'],
      [{ locale: 'not a tag!' }, 'locale'],
      [{ region: 'USA' }, 'region'],
      [{ region: 'ZZ' }, 'region'],
      [{ region: 'EU' }, 'region'],
      [{ region: 'QQ' }, 'region'],
    ] as const) {
      const res = await api(gw, 'PATCH', '/auth/me', { token: s.token, body });
      expectFailure(res, 400, 'invalid_request', new RegExp(field));
    }
    expectFailure(
      await api(gw, 'PATCH', '/auth/me', { token: s.token, body: { email: 'other@example.test' } }),
      400,
      'invalid_json',
    );
    expectFailure(await api(gw, 'PATCH', '/auth/me', { body: { nickname: 'x' } }), 401, 'unauthorized');
    expect((await api(gw, 'GET', '/auth/me', { token: s.token })).json.data).toMatchObject({
      nickname: null,
      locale: null,
      region: null,
    });
  });
});
