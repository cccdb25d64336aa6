import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signIn } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import type { Json } from '../support/limits.js';

// GET /v1/models/{id} (the SDK's models.retrieve). Spec: it "takes the API model id returned by the
// list, not a numeric site id"; entries are "filtered by key and organization permissions". The
// object is OpenAI's model object (id, object, created, owned_by) plus the gateway's endpoints.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    catalog: (simUrl) => ({
      providers: [{ id: 'sim', protocol: 'openai', base_url: `${simUrl}/v1`, api_key: 'sim-upstream-secret' }],
      models: [
        { id: 'gpt-sim', endpoints: ['chat/completions'], routes: [{ provider: 'sim' }], free: true },
        {
          id: 'acme/vision-1',
          endpoints: ['chat/completions', 'images/generations'],
          routes: [{ provider: 'sim' }],
          free: true,
          owned_by: 'acme',
        },
      ],
      groups: [
        { id: 'default', models: ['*'] },
        { id: 'chat-only', models: ['gpt-sim'] },
      ],
    }),
  });
});
afterAll(() => gw?.close());

const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });

async function get(key: string, path: string) {
  const res = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, json: (await res.json()) as Json };
}

describe('GET /v1/models/{id}', () => {
  it('answers exactly the object the list has for that id: id, object, created, owned_by and endpoints', async () => {
    const { key } = await gw.account();
    const listed = (await get(key, '/v1/models')).json.data as Json[];
    for (const id of ['gpt-sim', 'acme/vision-1']) {
      const one = await get(key, `/v1/models/${id}`);
      expect(one.status, id).toBe(200);
      expect(one.json).toEqual(listed.find((m) => m.id === id));
    }
    const model = await get(key, '/v1/models/acme/vision-1');
    expect(model.json).toEqual({
      id: 'acme/vision-1',
      object: 'model',
      created: expect.any(Number),
      owned_by: 'acme',
      endpoints: ['chat/completions', 'images/generations'],
    });
    expect(Number.isInteger(model.json.created)).toBe(true);
    // The official SDK escapes the '/' of the id; the gateway reads it back.
    expect(await client(key).models.retrieve('acme/vision-1')).toMatchObject(model.json);
    expect((await get(key, '/v1/models/gpt-sim')).json.owned_by).toBe('gateway'); // the catalog's default
  });

  it("is filtered like the list: a model the key's group does not allow, a numeric id or an unknown id answer the same 404 model_not_found", async () => {
    const { key } = await gw.account({ key: { group: 'chat-only' } });
    const listed = ((await get(key, '/v1/models')).json.data as Json[]).map((m) => m.id);
    expect(listed).toEqual(['gpt-sim']);
    expect((await get(key, '/v1/models/gpt-sim')).status).toBe(200);
    const strip = (r: { status: number; json: Json }) => ({
      status: r.status,
      error: { ...r.json.error, message: r.json.error.message.replace(/'[^']*'/, 'X') },
    });
    const unknown = await get(key, '/v1/models/no-such-model');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ code: 'model_not_found', param: 'model' });
    expect(strip(await get(key, '/v1/models/acme/vision-1'))).toEqual(strip(unknown));
    expect(strip(await get(key, '/v1/models/1'))).toEqual(strip(unknown));
    const refused = await client(key)
      .models.retrieve('acme/vision-1')
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("answers the account's own preset by @preset/<slug> as the list has it; another account's preset is not found", async () => {
    const owner = await gw.account();
    const { token } = await signIn(gw, owner.email);
    const created = await api(gw, 'POST', '/presets', { token, body: { slug: 'house', models: ['gpt-sim'] } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const listed = ((await get(owner.key, '/v1/models')).json.data as Json[]).find((m) => m.id === '@preset/house');
    const one = await get(owner.key, '/v1/models/@preset/house');
    expect(one.status).toBe(200);
    expect(one.json).toEqual(listed);
    expect(one.json).toEqual({ id: '@preset/house', object: 'model', created: expect.any(Number), owned_by: 'preset' });
    const stranger = await gw.account();
    expect((await get(stranger.key, '/v1/models/@preset/house')).json.error).toMatchObject({ code: 'model_not_found' });
  });
});
