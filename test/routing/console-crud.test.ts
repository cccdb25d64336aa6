import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectFailure, userSession } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe('routing presets in the console', () => {
  it('creates, lists, reads, updates and deletes a preset, scoped to the account', async () => {
    const owner = await userSession(gw);
    const created = await api(gw, 'POST', '/presets', {
      token: owner.token,
      body: { slug: 'support-bot', models: ['gpt-sim', 'free-sim'], preferred_providers: { only: ['sim'] } },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.data).toMatchObject({
      slug: 'support-bot',
      model: '@preset/support-bot',
      models: ['gpt-sim', 'free-sim'],
      strategy: 'ordered',
      weights: null,
      preferred_providers: { only: ['sim'] },
    });
    expectFailure(
      await api(gw, 'POST', '/presets', { token: owner.token, body: { slug: 'support-bot', models: ['gpt-sim'] } }),
      409,
      'conflict',
    );

    const list = await api(gw, 'GET', '/presets', { token: owner.token });
    expect(list.json).toMatchObject({ total: 1, page: 1, list: [{ slug: 'support-bot' }] });

    const patched = await api(gw, 'PATCH', '/presets/support-bot', {
      token: owner.token,
      body: { strategy: 'weighted', weights: [3, 1] },
    });
    expect(patched.json.data).toMatchObject({
      models: ['gpt-sim', 'free-sim'],
      strategy: 'weighted',
      weights: [3, 1],
      preferred_providers: { only: ['sim'] },
    });

    const stranger = await userSession(gw);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { strategy: 'ordered' }],
      ['DELETE', undefined],
    ] as const) {
      expectFailure(await api(gw, method, '/presets/support-bot', { token: stranger.token, body }), 404, 'not_found');
    }
    expect((await api(gw, 'DELETE', '/presets/support-bot', { token: owner.token })).status).toBe(204);
    expectFailure(await api(gw, 'GET', '/presets/support-bot', { token: owner.token }), 404, 'not_found');
  });

  it('refuses empty, duplicate and unknown models, bad weights, unknown providers, bad slugs and undeclared fields', async () => {
    const { token } = await userSession(gw);
    const cases: Array<[unknown, string, string]> = [
      [{ slug: 'a', models: [] }, 'invalid_request', 'models'],
      [{ slug: 'a', models: ['gpt-sim', 'gpt-sim'] }, 'invalid_request', 'models[1]'],
      [{ slug: 'a', models: ['nope'] }, 'invalid_request', 'models[0]'],
      [{ slug: 'a', models: ['gpt-sim'], strategy: 'weighted' }, 'invalid_request', 'weights'],
      [{ slug: 'a', models: ['gpt-sim'], weights: [1] }, 'invalid_request', 'weights'],
      [
        { slug: 'a', models: ['gpt-sim'], preferred_providers: { only: ['elsewhere'] } },
        'invalid_request',
        'preferred_providers.only[0]',
      ],
      [{ slug: 'Bad_Slug', models: ['gpt-sim'] }, 'invalid_request', 'slug'],
      [{ slug: 'a', models: ['gpt-sim'], colour: 'red' }, 'invalid_json', 'colour'],
    ];
    for (const [body, code, field] of cases) {
      const reply = await api(gw, 'POST', '/presets', { token, body });
      expectFailure(reply, 400, code);
      expect(reply.json.message, JSON.stringify(body)).toContain(field);
    }
  });
});

describe('prompt templates in the console', () => {
  it('creates versions with weights, binds keys of the account only, replaces lists on update', async () => {
    const owner = await userSession(gw);
    const created = await api(gw, 'POST', '/prompt-templates', {
      token: owner.token,
      body: {
        name: 'tone',
        versions: [
          { label: 'a', text: 'Be brief, {{key_name}}.', weight: 70 },
          { label: 'b', text: 'Be kind.', weight: 30 },
        ],
        key_ids: [owner.keyId],
      },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.data).toMatchObject({
      name: 'tone',
      key_ids: [owner.keyId],
      versions: [
        { label: 'a', weight: 70, variables: ['key_name'] },
        { label: 'b', weight: 30, variables: [] },
      ],
    });
    const id = created.json.data.id as string;

    const stranger = await userSession(gw);
    const foreign = await api(gw, 'PATCH', `/prompt-templates/${id}`, {
      token: owner.token,
      body: { key_ids: [stranger.keyId] },
    });
    expectFailure(foreign, 400, 'invalid_request');
    expectFailure(await api(gw, 'GET', `/prompt-templates/${id}`, { token: stranger.token }), 404, 'not_found');

    const patched = await api(gw, 'PATCH', `/prompt-templates/${id}`, {
      token: owner.token,
      body: { versions: [{ label: 'c', text: 'Only C.' }], key_ids: [] },
    });
    expect(patched.json.data).toMatchObject({ key_ids: [], versions: [{ label: 'c', weight: 1 }] });
    expect((await api(gw, 'GET', '/prompt-templates', { token: owner.token })).json.total).toBe(1);
    expect((await api(gw, 'DELETE', `/prompt-templates/${id}`, { token: owner.token })).status).toBe(204);
  });

  it('refuses duplicate labels, all-zero weights and empty version lists', async () => {
    const { token } = await userSession(gw);
    for (const versions of [
      [],
      [
        { label: 'a', text: 'x' },
        { label: 'a', text: 'y' },
      ],
      [{ label: 'a', text: 'x', weight: 0 }],
    ]) {
      expectFailure(
        await api(gw, 'POST', '/prompt-templates', { token, body: { name: 'x', versions } }),
        400,
        'invalid_request',
      );
    }
  });
});
