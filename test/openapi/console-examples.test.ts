import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Json, signIn } from '../console/helpers.js';
import { startSecurityGateway, type SecurityGateway } from '../console/security-gateway.js';
import { SoftAuthenticator } from '../support/authenticator.js';
import { chatRequest, postChat, waitUntil } from '../support/http.js';
import { pngOfSize } from '../support/images.js';
import { drained } from '../support/money.js';
import { RealAnswers, routesOf } from './example-shapes.js';

// The console routes' response examples and schemas against the gateway's real answers: every
// example has the fields the route really answers at every level, and every real answer parses
// with the route's response schema, strictly.
const ORIGIN = 'https://console.example.test';
let sg: SecurityGateway;
beforeAll(async () => {
  sg = await startSecurityGateway({
    env: { WEBHOOK_ALLOW_INSECURE_URLS: 'true', WEBAUTHN_ORIGIN: ORIGIN },
    moreQueues: 'dataset-export',
  });
});
afterAll(() => sg?.close());

const STRONG = 'a sturdy passphrase 42';

describe('console response examples', () => {
  it("have the fields of the routes' real answers, which parse with their schemas", { timeout: 90_000 }, async () => {
    const gw = sg.gw;
    const answers = new RealAnswers(routesOf('console'));
    let token = '';
    const call = async (method: string, path: string, route: string, body?: unknown) => {
      const reply = await api(gw, method.toUpperCase(), path, {
        ...(token && { token }),
        ...(body !== undefined && { body }),
      });
      expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.json)}`).toBeLessThan(300);
      answers.record(method, `/api/v1${route}`, reply.json);
      return reply.json as Json;
    };

    // Sign-up, then two-step verification on that account: sign-in with the e-mailed code.
    const email = `examples-${Date.now()}@example.test`;
    const newcomer = sg.inbox(email);
    await call('post', '/auth/register', '/auth/register', { email, password: STRONG, nickname: 'Ada' });
    token = (
      await call('post', '/auth/register/confirm', '/auth/register/confirm', {
        email,
        code: await newcomer.nextCode(),
        password: STRONG,
      })
    ).data.token;
    await call('post', '/auth/sensitive-code', '/auth/sensitive-code', { action: 'two_factor' });
    const on = { enabled: true, password: STRONG, code: await newcomer.nextCode() };
    await call('post', '/auth/two-factor', '/auth/two-factor', on);
    token = '';
    const held = await api(gw, 'POST', '/auth/login', { body: { identifier: email, password: STRONG } });
    expect(held.json.error_code).toBe('mfa_required');
    const code = await newcomer.nextCode();
    await call('post', '/auth/login/2fa', '/auth/login/2fa', { identifier: email, password: STRONG, code });

    // The main account: a call to see in the usage, then every read.
    const account = await gw.account({ balance: 2_000_000 });
    const s = await signIn(gw, account.email);
    answers.record('post', '/api/v1/auth/login', s.reply.json);
    token = s.token;
    const chat = await postChat(gw.url, account.key, chatRequest('gpt-sim', 'hi', { max_tokens: 3 }));
    expect(chat.status).toBe(200);
    await drained(gw);
    const day = new Date().toISOString().slice(0, 10);
    await call('get', '/auth/me', '/auth/me');
    await call('patch', '/auth/me', '/auth/me', { nickname: 'Ada', locale: 'en-US', region: 'DE' });
    await call('get', '/auth/mfa/status', '/auth/mfa/status');
    await call('get', '/auth/sessions', '/auth/sessions');
    await call('get', '/auth/oauth/providers', '/auth/oauth/providers');
    await call('get', '/auth/identities', '/auth/identities');
    await call('post', '/auth/session/token', '/auth/session/token');

    // A passkey: added through both ceremony steps, listed, then signed in with.
    const inbox = sg.inbox(account.email);
    await call('post', '/auth/sensitive-code', '/auth/sensitive-code', { action: 'add_passkey' });
    const creation = await call('post', '/auth/passkeys/register/options', '/auth/passkeys/register/options', {
      password: 'password123',
      code: await inbox.nextCode(),
    });
    const device = new SoftAuthenticator(ORIGIN);
    await call('post', '/auth/passkeys/register', '/auth/passkeys/register', {
      ceremony_id: creation.data.ceremony_id,
      response: device.create(creation.data.options),
      name: 'Laptop',
    });
    await call('get', '/auth/passkeys', '/auth/passkeys');
    const request = await call('post', '/auth/passkeys/login/options', '/auth/passkeys/login/options');
    await call('post', '/auth/passkeys/login', '/auth/passkeys/login', {
      ceremony_id: request.data.ceremony_id,
      response: device.get(request.data.options),
    });

    await call('get', '/keys', '/keys');
    await call('get', '/keys/groups', '/keys/groups');
    await call('get', `/keys/${account.keyId}`, '/keys/:id');
    const created = await call('post', '/keys', '/keys', { name: 'production', rpm_limit: 600, tags: ['web'] });
    await call('patch', `/keys/${created.data.id}`, '/keys/:id', { status: 'disabled' });
    await call('get', `/usage/report?group_by=model&start=${day}&end=${day}`, '/usage/report');
    await call('get', '/usage/logs', '/usage/logs');
    await call('get', '/ledger', '/ledger');
    await call('delete', '/cache', '/cache');
    await call('get', '/account/settings', '/account/settings');
    await call('patch', '/account/settings', '/account/settings', { log_content: false });
    const exp = await call('post', '/datasets/exports', '/datasets/exports', {
      start: `${day}T00:00:00Z`,
      end: new Date(Date.now() + 86_400_000).toISOString(),
      model: 'gpt-sim',
    });
    // Written by the export worker: the answer then carries its download link.
    await waitUntil(
      async () =>
        (await api(gw, 'GET', `/datasets/exports/${exp.data.id}`, { token })).json.data.status === 'succeeded',
      30_000,
      50,
    );
    await call('get', '/datasets/exports', '/datasets/exports');
    await call('get', `/datasets/exports/${exp.data.id}`, '/datasets/exports/:id');

    const preset = { slug: 'cheap-first', models: ['gpt-sim', 'free-sim'], strategy: 'weighted', weights: [3, 1] };
    await call('post', '/presets', '/presets', preset);
    await call('get', '/presets', '/presets');
    await call('get', '/presets/cheap-first', '/presets/:slug');
    await call('patch', '/presets/cheap-first', '/presets/:slug', { strategy: 'ordered', weights: null });
    const tpl = await call('post', '/prompt-templates', '/prompt-templates', {
      name: 'tone',
      versions: [{ label: 'pirate', text: 'Answer as {{persona|a pirate}}.', weight: 1 }],
      key_ids: [account.keyId],
    });
    await call('get', '/prompt-templates', '/prompt-templates');
    await call('get', `/prompt-templates/${tpl.data.id}`, '/prompt-templates/:id');
    await call('patch', `/prompt-templates/${tpl.data.id}`, '/prompt-templates/:id', { key_ids: [] });

    const hook = await call('post', '/webhooks', '/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['video.completed', 'batch.completed'],
      description: 'production receiver',
    });
    const id = hook.data.id as string;
    await call('get', '/webhooks', '/webhooks');
    await call('get', `/webhooks/${id}`, '/webhooks/:id');
    await call('post', `/webhooks/${id}/rotate-secret`, '/webhooks/:id/rotate-secret');
    await call('post', `/webhooks/${id}/test`, '/webhooks/:id/test');
    // (Redelivery needs a delivery that ended: without a webhook worker here, none does.)
    await call('get', `/webhooks/${id}/deliveries`, '/webhooks/:id/deliveries');
    await call('patch', `/webhooks/${id}`, '/webhooks/:id', { events: ['batch.completed'], enabled: false });

    const png = pngOfSize(1024);
    const reserved = await call('post', '/assets', '/assets', {
      filename: 'diagram.png',
      content_type: 'image/png',
      size_bytes: png.length,
    });
    const put = await fetch(reserved.data.upload_url, { method: 'PUT', headers: reserved.data.headers, body: png });
    expect(put.status).toBe(200);
    const asset = await call(
      'post',
      `/assets/uploads/${reserved.data.upload_id}/complete`,
      '/assets/uploads/:uploadId/complete',
    );
    await call('get', '/assets', '/assets');
    await call('get', `/assets/${asset.data.id}`, '/assets/:id');
    await call('get', `/assets/${asset.data.id}/content`, '/assets/:id/content');
    await call('post', `/keys/${account.keyId}/revoke`, '/keys/:id/revoke');
    await call('post', '/auth/logout', '/auth/logout');

    answers.expectExamplesMatch({
      'get /api/v1/auth/oauth/:provider/callback': 'a provider sign-in: test/console/oidc.test.ts',
      'post /api/v1/auth/oauth/handoff': 'a provider sign-in: the session answer, as /auth/login',
      'post /api/v1/auth/oauth/2fa': 'a provider sign-in: the session answer, as /auth/login/2fa',
      'post /api/v1/auth/oauth/:provider/link': 'a provider sign-in: test/console/oidc.test.ts',
      'post /api/v1/auth/password/reset/request': 'a captcha: the code-sent answer, as /auth/register',
      'post /api/v1/webhooks/:id/deliveries/:delivery_id/redeliver': 'an ended delivery: the delivery, as /test',
    });
  });
});
