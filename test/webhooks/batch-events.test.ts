// A batch's end delivered end to end: `batch.completed`, `batch.failed`, `batch.cancelled` and
// `batch.expired` (and a Message Batch's `batch.completed`) reach a real receiver once each, signed
// per Standard Webhooks (verified with the standardwebhooks package), the body naming the batch and
// its end's time. One line at a time, each slow, so a batch is seen mid-run; the domain clock moves
// past a batch's 24 h window to expire it.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offsetClock } from '../support/gateway.js';
import { chatLine, openAi, slowBatchUnderway, uploadLines, waitBatchEnd } from '../batches/support.js';
import {
  startReceiver,
  startWebhookGateway,
  subscribedOwner,
  waitDelivery,
  type Receiver,
  type WebhookGateway,
} from './support.js';

const BATCH_EVENTS = ['batch.completed', 'batch.failed', 'batch.expired', 'batch.cancelled'];
const clock = offsetClock();
let gw: WebhookGateway;
let receiver: Receiver;
beforeAll(async () => {
  gw = await startWebhookGateway({ clock, env: { BATCH_CONCURRENCY: '1' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await gw?.close();
});

/** An account listening to every batch event at `path`, and its Batch API client. */
async function listener(path: string) {
  const a = await subscribedOwner(gw, receiver, BATCH_EVENTS, path);
  return { ...a, client: openAi(gw, a.key) };
}

/**
 * Waits for the one delivery of the batch's event, recorded delivered; checks its signature, its
 * body and that it came once. Returns the event.
 */
async function deliveredEvent(
  a: { token: string; endpoint: { id: string; secret: string } },
  path: string,
  batchId: string,
  type: string,
  object = 'batch',
) {
  const [request] = await receiver.waitFor(1, (r) => r.path === path && r.body.includes(batchId), 20_000);
  const event = new Webhook(a.endpoint.secret).verify(request!.body, request!.headers) as Record<string, unknown>;
  expect(event).toEqual({
    id: request!.headers['webhook-id'],
    object: 'event',
    type,
    created_at: expect.any(Number),
    data: { id: batchId, object },
  });
  await waitDelivery(gw, a.token, a.endpoint.id, (d) => d.event_id === event.id && d.status === 'delivered');
  expect(receiver.received.filter((r) => r.path === path && r.body.includes(batchId))).toHaveLength(1);
  return event as { created_at: number };
}

describe('batch events', () => {
  it('batch.completed and batch.failed, each at its end, to the receiver; a Message Batch too', async () => {
    const a = await listener('/ended');
    const good = await uploadLines(a.client, [chatLine('a', 'hi')]);
    const bad = await uploadLines(a.client, ['not json']);
    const [completed, failed] = await Promise.all(
      [good, bad].map(async (file) => {
        const created = await a.client.batches.create({
          input_file_id: file.id,
          endpoint: '/v1/chat/completions',
          completion_window: '24h',
        });
        return waitBatchEnd(a.client, created.id);
      }),
    );
    expect([completed!.status, failed!.status]).toEqual(['completed', 'failed']);
    const done = await deliveredEvent(a, '/ended', completed!.id, 'batch.completed');
    expect(done.created_at).toBe(completed!.completed_at);
    const refused = await deliveredEvent(a, '/ended', failed!.id, 'batch.failed');
    expect(refused.created_at).toBe(failed!.failed_at);

    const messages = await fetch(`${gw.url}/v1/messages/batches`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': a.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        requests: [
          { custom_id: 'm', params: { model: 'gpt-sim', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] } },
        ],
      }),
    });
    expect(messages.status).toBe(200);
    const { id } = (await messages.json()) as { id: string };
    await deliveredEvent(a, '/ended', id, 'batch.completed', 'message_batch');
  });

  it('batch.cancelled once the lines in flight have ended', async () => {
    const a = await listener('/cancelled');
    const created = await slowBatchUnderway(a.client, 20);
    await a.client.batches.cancel(created.id);
    const batch = await waitBatchEnd(a.client, created.id);
    expect(batch.status).toBe('cancelled');
    const event = await deliveredEvent(a, '/cancelled', batch.id, 'batch.cancelled');
    expect(event.created_at).toBe(batch.cancelled_at);
  });

  it('batch.expired when the window passes with lines left', async () => {
    const a = await listener('/expired');
    const created = await slowBatchUnderway(a.client, 20);
    clock.advance(24 * 3600_000 + 1_000);
    const batch = await waitBatchEnd(a.client, created.id);
    expect(batch.status).toBe('expired');
    const event = await deliveredEvent(a, '/expired', batch.id, 'batch.expired');
    expect(event.created_at).toBe(batch.expired_at);
  });
});
