// The console's webhook endpoints API: the contract's shapes, validation naming the field, the
// secret shown once (at creation and rotation), and one account never seeing another's endpoints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectFailure } from '../console/helpers.js';
import { createEndpoint, owner, startReceiver, startWebhookGateway, type WebhookGateway } from './support.js';

let gw: WebhookGateway;
beforeAll(async () => {
  gw = await startWebhookGateway();
});
afterAll(() => gw?.close());

const URL_A = 'https://hooks.example.com/gateway';

describe('POST /api/v1/webhooks', () => {
  it('answers 201 with the endpoint and its whsec_ secret, shown this once', async () => {
    const a = await owner(gw);
    const created = await createEndpoint(gw, a.token, {
      url: URL_A,
      events: ['video.completed', 'video.failed', 'video.completed'],
      description: 'production receiver',
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const endpoint = created.json.data;
    expect(endpoint).toMatchObject({
      id: expect.stringMatching(/^wh_[0-9A-Za-z]{24}$/),
      object: 'webhook_endpoint',
      url: URL_A,
      events: ['video.completed', 'video.failed'],
      description: 'production receiver',
      enabled: true,
      disabled_reason: null,
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });

    const read = await api(gw, 'GET', `/webhooks/${endpoint.id}`, { token: a.token });
    expect(read.status).toBe(200);
    expect(read.json.data).not.toHaveProperty('secret');
    expect(read.json.data).toMatchObject({ id: endpoint.id, url: URL_A, events: endpoint.events });
    expect(JSON.stringify(read.json)).not.toContain(endpoint.secret);

    const list = await api(gw, 'GET', '/webhooks', { token: a.token });
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ total: 1, page: 1, page_size: 20, request_id: expect.any(String) });
    expect(list.json.list.map((e: { id: string }) => e.id)).toEqual([endpoint.id]);
    expect(JSON.stringify(list.json)).not.toContain(endpoint.secret);
  });

  it('refuses a bad body with 400 naming the field', async () => {
    const a = await owner(gw);
    const cases: Array<[unknown, string, string]> = [
      [{ events: ['video.completed'] }, 'url', 'invalid_request'],
      [{ url: 'not a url', events: ['video.completed'] }, 'url', 'invalid_request'],
      [{ url: 'ftp://hooks.example.com/x', events: ['video.completed'] }, 'url', 'invalid_request'],
      [{ url: 'https://user:pw@hooks.example.com/x', events: ['video.completed'] }, 'url', 'invalid_request'],
      [{ url: URL_A }, 'events', 'invalid_request'],
      [{ url: URL_A, events: [] }, 'events', 'invalid_request'],
      [{ url: URL_A, events: ['video.done'] }, 'events[0]', 'invalid_request'],
      [{ url: URL_A, events: ['video.completed'], description: 'x'.repeat(501) }, 'description', 'invalid_request'],
      [{ url: URL_A, events: ['video.completed'], secret: 'whsec_mine' }, 'secret', 'invalid_json'],
    ];
    for (const [body, param, code] of cases) {
      const reply = await createEndpoint(gw, a.token, body as never);
      expectFailure(reply, 400, code);
      expect(reply.json.param, JSON.stringify(body)).toBe(param);
    }
    expect((await api(gw, 'GET', '/webhooks', { token: a.token })).json.total).toBe(0);
  });

  it('needs a session: no credential, or an API key, is 401', async () => {
    const a = await owner(gw);
    expectFailure(await api(gw, 'GET', '/webhooks'), 401, 'unauthorized');
    expectFailure(await createEndpoint(gw, a.key, { url: URL_A, events: ['video.completed'] }), 401, 'unauthorized');
  });

  it('keeps an account at 20 endpoints (409 past that)', async () => {
    const a = await owner(gw);
    // An IP literal: no DNS lookup per endpoint.
    for (let i = 0; i < 20; i++)
      expect(
        (await createEndpoint(gw, a.token, { url: `https://93.184.216.34/hook/${i}`, events: ['webhook.test'] }))
          .status,
      ).toBe(201);
    expectFailure(await createEndpoint(gw, a.token, { url: URL_A, events: ['webhook.test'] }), 409, 'conflict');
    const page = await api(gw, 'GET', '/webhooks?page=2&page_size=15', { token: a.token });
    expect(page.json).toMatchObject({ total: 20, page: 2, page_size: 15 });
    expect(page.json.list).toHaveLength(5);
  });
});

describe('PATCH, rotate-secret and DELETE', () => {
  it('update the given fields; disabling and enabling say why', async () => {
    const a = await owner(gw);
    const { id } = (await createEndpoint(gw, a.token, { url: URL_A, events: ['video.completed'] })).json.data;
    const patched = await api(gw, 'PATCH', `/webhooks/${id}`, {
      token: a.token,
      body: { url: 'https://hooks.example.com/v2', events: ['image_task.completed'], description: 'moved' },
    });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect(patched.json.data).toMatchObject({
      url: 'https://hooks.example.com/v2',
      events: ['image_task.completed'],
      description: 'moved',
      enabled: true,
    });
    expect(patched.json.data).not.toHaveProperty('secret');

    const off = await api(gw, 'PATCH', `/webhooks/${id}`, { token: a.token, body: { enabled: false } });
    expect(off.json.data).toMatchObject({ enabled: false, disabled_reason: 'owner', description: 'moved' });
    const on = await api(gw, 'PATCH', `/webhooks/${id}`, {
      token: a.token,
      body: { enabled: true, description: null },
    });
    expect(on.json.data).toMatchObject({ enabled: true, disabled_reason: null, description: null });

    expectFailure(
      await api(gw, 'PATCH', `/webhooks/${id}`, { token: a.token, body: { url: 'ftp://hooks.example.com' } }),
      400,
      'invalid_request',
    );
    const bad = await api(gw, 'PATCH', `/webhooks/${id}`, { token: a.token, body: { events: ['nope'] } });
    expectFailure(bad, 400, 'invalid_request');
    expect(bad.json.param).toBe('events[0]');
    expectFailure(
      await api(gw, 'PATCH', `/webhooks/${id}`, { token: a.token, body: { id: 'x' } }),
      400,
      'invalid_json',
    );
  });

  it('rotate-secret shows a new secret once, and the previous one signing for 24 h', async () => {
    const a = await owner(gw);
    const created = (await createEndpoint(gw, a.token, { url: URL_A, events: ['video.completed'] })).json.data;
    const before = Date.now();
    const rotated = await api(gw, 'POST', `/webhooks/${created.id}/rotate-secret`, { token: a.token });
    expect(rotated.status, JSON.stringify(rotated.json)).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.json.data.secret).toMatch(/^whsec_/);
    expect(rotated.json.data.secret).not.toBe(created.secret);
    const overlap = Date.parse(rotated.json.data.previous_secret_expires_at) - before;
    expect(overlap).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(overlap).toBeLessThanOrEqual(24 * 3600_000 + 60_000);
    const read = await api(gw, 'GET', `/webhooks/${created.id}`, { token: a.token });
    expect(read.json.data).not.toHaveProperty('secret');
    expect(read.json.data.previous_secret_expires_at).toBe(rotated.json.data.previous_secret_expires_at);
  });

  it('DELETE answers 204, then the endpoint is gone', async () => {
    const a = await owner(gw);
    const { id } = (await createEndpoint(gw, a.token, { url: URL_A, events: ['video.completed'] })).json.data;
    const removed = await api(gw, 'DELETE', `/webhooks/${id}`, { token: a.token });
    expect(removed.status).toBe(204);
    expectFailure(await api(gw, 'GET', `/webhooks/${id}`, { token: a.token }), 404, 'not_found');
    expectFailure(await api(gw, 'DELETE', `/webhooks/${id}`, { token: a.token }), 404, 'not_found');
  });
});

describe('accounts', () => {
  it("never see or touch each other's endpoints or deliveries", async () => {
    const a = await owner(gw);
    const b = await owner(gw);
    const receiver = await startReceiver();
    const url = `${receiver.origin}/a`;
    const { id } = (await createEndpoint(gw, a.token, { url, events: ['video.completed'] })).json.data;
    const tested = await api(gw, 'POST', `/webhooks/${id}/test`, { token: a.token });
    expect(tested.status, JSON.stringify(tested.json)).toBe(202);
    const deliveryId = tested.json.data.id as string;

    const attempts: Array<[string, string, unknown]> = [
      ['GET', `/webhooks/${id}`, undefined],
      ['PATCH', `/webhooks/${id}`, { enabled: false }],
      ['POST', `/webhooks/${id}/rotate-secret`, undefined],
      ['POST', `/webhooks/${id}/test`, undefined],
      ['GET', `/webhooks/${id}/deliveries`, undefined],
      ['POST', `/webhooks/${id}/deliveries/${deliveryId}/redeliver`, undefined],
      ['DELETE', `/webhooks/${id}`, undefined],
    ];
    for (const [method, path, body] of attempts)
      expectFailure(await api(gw, method, path, { token: b.token, body }), 404, 'not_found');
    expect((await api(gw, 'GET', '/webhooks', { token: b.token })).json).toMatchObject({ total: 0, list: [] });

    // Untouched for its owner, with its delivery listed.
    const own = await api(gw, 'GET', `/webhooks/${id}`, { token: a.token });
    expect(own.json.data).toMatchObject({ id, enabled: true });
    const deliveries = await api(gw, 'GET', `/webhooks/${id}/deliveries`, { token: a.token });
    expect(deliveries.json.list.map((d: { id: string }) => d.id)).toEqual([deliveryId]);
    // The test event went to A's receiver, once.
    expect((await receiver.waitFor(1)).map((r) => r.path)).toEqual(['/a']);
    await receiver.close();
  });

  it('a malformed id is a missing endpoint', async () => {
    const a = await owner(gw);
    for (const id of ['x', 'wh_short', `wh_${'a'.repeat(25)}`])
      expectFailure(await api(gw, 'GET', `/webhooks/${id}`, { token: a.token }), 404, 'not_found');
  });
});
