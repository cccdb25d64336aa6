// One attempt's limits, against real listeners: a 2xx after the attempt time-out is a failed attempt
// (WEBHOOK_ATTEMPT_TIMEOUT_MS made short here), an endless answer is read only to 64 KiB, the
// connection goes to the address that was checked whatever a second DNS answer would say, and the
// previous secret stops signing once the rotation's 24 h are over (the domain clock jumps them).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safePost } from '../../shared/assets/safe-fetch.js';
import type { WebhookEndpointRow } from '../../shared/db/webhook-schema.js';
import { sendAttempt } from '../../shared/webhooks/send-attempt.js';
import { newWebhookSecret } from '../../shared/webhooks/signature.js';
import { api } from '../console/helpers.js';
import { offsetClock } from '../support/gateway.js';
import { waitUntil } from '../support/http.js';
import {
  startReceiver,
  startWebhookGateway,
  subscribedOwner,
  waitDelivery,
  type Receiver,
  type WebhookGateway,
} from './support.js';

// Long enough for a prompt answer on two busy cores, short enough for a test to wait out.
const TIMEOUT_MS = 1_000;
const clock = offsetClock();
let gw: WebhookGateway;
let receiver: Receiver;
beforeAll(async () => {
  gw = await startWebhookGateway({ clock, env: { WEBHOOK_ATTEMPT_TIMEOUT_MS: String(TIMEOUT_MS) } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await gw?.close();
});

const subscribed = (path: string) => subscribedOwner(gw, receiver, ['webhook.test'], path);

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('an attempt', () => {
  it('that gets its 2xx only after the time-out is a failed attempt, and is retried', async () => {
    const a = await subscribed('/slow');
    receiver.answer('hold');
    await api(gw, 'POST', `/webhooks/${a.endpoint.id}/test`, { token: a.token });
    await receiver.waitFor(1, (r) => r.path === '/slow');
    const timedOut = await waitDelivery(gw, a.token, a.endpoint.id, (d) => d.attempts.length >= 1);
    // The receiver answers 204 now, after the gateway gave up on the attempt.
    receiver.release(204);
    expect(timedOut.attempts[0]).toMatchObject({ status_code: null, error: 'no answer within 1 s' });
    expect(timedOut.attempts[0].duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    const delivered = await waitDelivery(gw, a.token, a.endpoint.id, (d) => d.status === 'delivered');
    expect(delivered.attempts.at(-1).status_code).toBe(204);
    const ids = receiver.received.filter((r) => r.path === '/slow').map((r) => r.headers['webhook-id']);
    expect(ids.length).toBe(delivered.attempt_count);
    expect(new Set(ids)).toEqual(new Set([ids[0]]));
  });

  it('reads at most 64 KiB of the answer: an endless body is delivered long before the time-out', async () => {
    let closed = 0;
    const endless = createServer((_req, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'a');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      res.on('close', () => closed++);
      pump();
    });
    const port = await listen(endless, 0, '127.0.0.1');
    try {
      const url = `http://127.0.0.1:${port}/hook`;
      const options = { allowHttp: true, allowLoopback: true, timeoutMs: 10_000, body: '{}', headers: {} };
      const started = performance.now();
      const answer = await safePost(url, { ...options, maxBytes: 64 * 1024 });
      expect(answer.status).toBe(200);
      expect(answer.body.length).toBe(64 * 1024);
      expect(performance.now() - started).toBeLessThan(5_000);
      // The rest is never read: the connection is dropped.
      await waitUntil(() => closed === 1, 5_000);

      // The delivery path reads the same way: delivered, with 1 KiB kept, within a fraction of its 10 s.
      const endpoint = { url, secret: newWebhookSecret(), previous_secret: null } as unknown as WebhookEndpointRow;
      const config = { allowInsecureUrls: true, retryBaseMs: 50, attemptTimeoutMs: 10_000 };
      const result = await sendAttempt(config, endpoint, { id: 'evt_endless', payload: '{}' }, Date.now());
      expect(result).toMatchObject({ delivered: true, statusCode: 200, error: null });
      expect(result.excerpt).toBe('a'.repeat(1024));
      expect(result.durationMs).toBeLessThan(5_000);
      await waitUntil(() => closed === 2, 5_000);
    } finally {
      await close(endless);
    }
  });

  it('connects to the address it checked: a second DNS answer (rebinding) is never asked for', async () => {
    const checked = await startReceiver();
    let elsewhere = 0;
    const rebound = createServer((_req, res) => res.writeHead(204).end());
    rebound.on('connection', () => elsewhere++);
    try {
      // The same port on another loopback address: where a second resolution would lead.
      const port = Number(new URL(checked.origin).port);
      await listen(rebound, port, '127.0.0.2');
      let asked = 0;
      const options = {
        allowHttp: true,
        // 127.0.0.1 stands for a public address; 127.0.0.2 is refused like any loopback address.
        trusted: ['127.0.0.1'],
        lookup: async () => (++asked === 1 ? ['127.0.0.1'] : ['127.0.0.2']),
        timeoutMs: 5_000,
        maxBytes: 1024,
        body: '{}',
        headers: {},
      };
      const answer = await safePost(`http://hooks.rebind.test:${port}/hook`, options);
      expect(answer.status).toBe(204);
      expect(checked.received.map((r) => [r.path, r.headers.host])).toEqual([['/hook', `hooks.rebind.test:${port}`]]);
      expect(asked).toBe(1);
      // The second answer is what the next attempt's check finds: refused before any connection.
      await expect(safePost(`http://hooks.rebind.test:${port}/hook`, options)).rejects.toMatchObject({
        code: 'reference_url_blocked',
      });
      expect(elsewhere).toBe(0);
    } finally {
      await close(rebound);
      await checked.close();
    }
  });
});

describe('a secret rotation', () => {
  it("drops the previous secret's signature once its 24 h overlap is over", async () => {
    const a = await subscribed('/rotated-late');
    const rotated = await api(gw, 'POST', `/webhooks/${a.endpoint.id}/rotate-secret`, { token: a.token });
    const [oldSecret, newSecret] = [a.endpoint.secret, rotated.json.data.secret as string];
    clock.advance(24 * 3600_000 + 60_000);
    const view = await api(gw, 'GET', `/webhooks/${a.endpoint.id}`, { token: a.token });
    expect(view.json.data.previous_secret_expires_at).toBeNull();
    await api(gw, 'POST', `/webhooks/${a.endpoint.id}/test`, { token: a.token });
    const [delivery] = await receiver.waitFor(1, (r) => r.path === '/rotated-late');
    const { body, headers } = delivery!;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(new Webhook(newSecret).verify(body, headers)).toMatchObject({ type: 'webhook.test' });
    expect(() => new Webhook(oldSecret).verify(body, headers)).toThrow();
  });
});
