import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../api/routes/index.js';
import { openApiPath, type Route } from '../../api/routes/route.js';
import { api, type Json, signIn } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';
import { pngOfSize } from '../support/images.js';
import { drained } from '../support/money.js';

// The console routes' response examples (the reference's) against the gateway's real answers:
// every example has the envelope and the fields the route really answers, no more, no fewer.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ env: { WEBHOOK_ALLOW_INSECURE_URLS: 'true' } });
});
afterAll(() => gw.close());

const CONSOLE = ROUTES.filter((r) => r.path.startsWith('/api/v1'));

/** The first 2xx with a body: the answer an example shows (undefined: a 204 or a redirect). */
function successStatus(route: Route): string | undefined {
  const declared = Object.keys(route.responses ?? {});
  if (!declared.some((s) => /^[23]/.test(s))) return '200';
  return declared.find((s) => /^2/.test(s) && s !== '204');
}

/** Field names of an answer: the envelope's, then its `data` object's (or first list item's). */
function shape(body: Json): Record<string, unknown> {
  const inner = Array.isArray(body?.list) ? body.list[0] : Array.isArray(body?.data) ? body.data[0] : body?.data;
  return {
    envelope: Object.keys(body ?? {}).sort(),
    data: inner !== null && typeof inner === 'object' ? Object.keys(inner).sort() : typeof inner,
  };
}

describe('console response examples', () => {
  it('exist for every console route that answers a body', () => {
    const missing = CONSOLE.filter((r) => successStatus(r) && r.examples?.response === undefined).map(
      (r) => `${r.method} ${r.path}`,
    );
    expect(missing).toEqual([]);
  });

  it("have the fields of the routes' real answers", { timeout: 60_000 }, async () => {
    const account = await gw.account({ balance: 2_000_000 });
    const s = await signIn(gw, account.email);
    const token = s.token;
    expect((await postChat(gw.url, account.key, chatRequest('gpt-sim', 'hi', { max_tokens: 3 }))).status).toBe(200);
    await drained(gw);
    const answers: Record<string, Json> = {};
    const call = async (method: string, path: string, route: string, body?: unknown) => {
      const reply = await api(gw, method.toUpperCase(), path, { token, ...(body !== undefined && { body }) });
      expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.json)}`).toBeLessThan(300);
      answers[`${method} ${route}`] = reply.json;
      return reply.json;
    };
    const day = new Date().toISOString().slice(0, 10);
    await call('get', '/auth/me', '/api/v1/auth/me');
    await call('get', '/auth/mfa/status', '/api/v1/auth/mfa/status');
    await call('get', '/auth/sessions', '/api/v1/auth/sessions');
    await call('get', '/auth/passkeys', '/api/v1/auth/passkeys');
    await call('post', '/auth/passkeys/login/options', '/api/v1/auth/passkeys/login/options');
    await call('get', '/auth/oauth/providers', '/api/v1/auth/oauth/providers');
    await call('get', '/auth/identities', '/api/v1/auth/identities');
    await call('post', '/auth/session/token', '/api/v1/auth/session/token');
    await call('get', '/keys', '/api/v1/keys');
    await call('get', '/keys/groups', '/api/v1/keys/groups');
    await call('get', `/keys/${account.keyId}`, '/api/v1/keys/:id');
    await call('get', `/usage/report?group_by=model&start=${day}&end=${day}`, '/api/v1/usage/report');
    await call('get', '/usage/logs', '/api/v1/usage/logs');
    await call('get', '/ledger', '/api/v1/ledger');
    await call('get', '/account/settings', '/api/v1/account/settings');
    const exp = await call('post', '/datasets/exports', '/api/v1/datasets/exports', {
      start: `${day}T00:00:00Z`,
      end: new Date(Date.now() + 86_400_000).toISOString(),
    });
    await call('get', '/datasets/exports', '/api/v1/datasets/exports');
    await call('get', `/datasets/exports/${exp.data.id}`, '/api/v1/datasets/exports/:id');
    await call('post', '/presets', '/api/v1/presets', { slug: 'cheap-first', models: ['gpt-sim'] });
    await call('get', '/presets', '/api/v1/presets');
    await call('get', '/presets/cheap-first', '/api/v1/presets/:slug');
    const tpl = await call('post', '/prompt-templates', '/api/v1/prompt-templates', {
      name: 'tone',
      versions: [{ label: 'a', text: 'Answer as {{persona|a pirate}}.', weight: 1 }],
    });
    await call('get', '/prompt-templates', '/api/v1/prompt-templates');
    await call('get', `/prompt-templates/${tpl.data.id}`, '/api/v1/prompt-templates/:id');
    const hook = await call('post', '/webhooks', '/api/v1/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['batch.completed'],
    });
    const id = hook.data.id as string;
    await call('get', '/webhooks', '/api/v1/webhooks');
    await call('get', `/webhooks/${id}`, '/api/v1/webhooks/:id');
    await call('post', `/webhooks/${id}/rotate-secret`, '/api/v1/webhooks/:id/rotate-secret');
    await call('post', `/webhooks/${id}/test`, '/api/v1/webhooks/:id/test');
    // (Redelivery needs a delivery that ended: without a webhook worker here, none does.)
    await call('get', `/webhooks/${id}/deliveries`, '/api/v1/webhooks/:id/deliveries');
    const png = pngOfSize(1024);
    const reserved = await call('post', '/assets', '/api/v1/assets', {
      filename: 'pixel.png',
      content_type: 'image/png',
      size_bytes: png.length,
    });
    const put = await fetch(reserved.data.upload_url, { method: 'PUT', headers: reserved.data.headers, body: png });
    expect(put.status).toBe(200);
    const asset = await call(
      'post',
      `/assets/uploads/${reserved.data.upload_id}/complete`,
      '/api/v1/assets/uploads/:uploadId/complete',
    );
    await call('get', '/assets', '/api/v1/assets');
    await call('get', `/assets/${asset.data.id}`, '/api/v1/assets/:id');
    await call('get', `/assets/${asset.data.id}/content`, '/api/v1/assets/:id/content');
    await call('post', `/keys/${account.keyId}/revoke`, '/api/v1/keys/:id/revoke');
    await call('post', '/auth/logout', '/api/v1/auth/logout');

    const wrong: string[] = [];
    for (const [name, body] of Object.entries(answers)) {
      const [method, path] = name.split(' ') as [string, string];
      const route = CONSOLE.find((r) => r.method === method && r.path === path);
      expect(route, name).toBeDefined();
      const example = route!.examples?.response;
      const real = shape(body);
      // An empty list (no passkeys, providers or identities here) says nothing of its items.
      const shown = real.data === 'undefined' ? { ...shape(example), data: 'undefined' } : shape(example);
      if (JSON.stringify(shown) !== JSON.stringify(real))
        wrong.push(
          `${name} (${openApiPath(path)}): example ${JSON.stringify(shape(example))}, real ${JSON.stringify(shape(body))}`,
        );
    }
    expect(wrong).toEqual([]);
  });
});
