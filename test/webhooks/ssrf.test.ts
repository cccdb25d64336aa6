// Without WEBHOOK_ALLOW_INSECURE_URLS, endpoints are https URLs to public addresses: anything else is
// refused when it is set (400 naming `url`), and an endpoint that points elsewhere anyway (stored
// under the development setting, or a name that now resolves to a private address) is refused at
// every delivery before any connection is made.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../shared/ids.js';
import { newWebhookSecret } from '../../shared/webhooks/signature.js';
import { api, expectFailure } from '../console/helpers.js';
import {
  createEndpoint,
  owner,
  startReceiver,
  startWebhookGateway,
  waitDelivery,
  type WebhookGateway,
} from './support.js';

let gw: WebhookGateway;
beforeAll(async () => {
  gw = await startWebhookGateway({ env: { WEBHOOK_ALLOW_INSECURE_URLS: 'false' } });
});
afterAll(() => gw?.close());

describe('at creation', () => {
  it('refuses http, private, loopback, link-local and reserved addresses with 400 naming url', async () => {
    const a = await owner(gw);
    for (const url of [
      'http://hooks.example.com/x',
      'https://127.0.0.1/x',
      'https://localhost:8443/x',
      'https://app.localhost/x',
      'https://10.1.2.3/x',
      'https://172.16.0.1/x',
      'https://192.168.1.20/x',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/x',
      'https://0.0.0.0/x',
      'https://[::1]/x',
      'https://[fd00::1]/x',
      'https://[::ffff:127.0.0.1]/x',
    ]) {
      const reply = await createEndpoint(gw, a.token, { url, events: ['webhook.test'] });
      expectFailure(reply, 400, 'invalid_request');
      expect(reply.json.param, url).toBe('url');
    }
    const { id } = (await createEndpoint(gw, a.token, { url: 'https://93.184.216.34/hook', events: ['webhook.test'] }))
      .json.data;
    expectFailure(
      await api(gw, 'PATCH', `/webhooks/${id}`, { token: a.token, body: { url: 'https://10.0.0.8/x' } }),
      400,
      'invalid_request',
    );
    expect((await api(gw, 'GET', '/webhooks', { token: a.token })).json.total).toBe(1);
  });
});

describe('at delivery', () => {
  it('refuses an endpoint on a loopback address without connecting, and records the attempt', async () => {
    const a = await owner(gw);
    const receiver = await startReceiver();
    try {
      const port = new URL(receiver.origin).port;
      // Stored when the development setting allowed it: the rule is applied again at every attempt.
      for (const url of [`https://127.0.0.1:${port}/x`, `https://localhost:${port}/x`]) {
        const id = `wh_${randomBase62(24)}`;
        await gw.services.db
          .insertInto('webhook_endpoints')
          .values({
            id,
            user_id: a.userId,
            url,
            events: ['webhook.test'],
            description: null,
            secret: newWebhookSecret(),
          })
          .execute();
        const tested = await api(gw, 'POST', `/webhooks/${id}/test`, { token: a.token });
        expect(tested.status).toBe(202);
        const view = await waitDelivery(gw, a.token, id, (d) => d.attempts.length > 0);
        expect(view.status).toBe('pending');
        expect(view.attempts[0]).toMatchObject({ status_code: null, response_excerpt: '' });
        expect(view.attempts[0].error).toMatch(/address the gateway does not connect to/);
      }
      expect(receiver.connections()).toBe(0);
    } finally {
      await receiver.close();
    }
  });
});
