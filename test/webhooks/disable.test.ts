// An endpoint that fails for 3 days is disabled, its pending deliveries end, and its owner is
// mailed once; enabled again, it receives once more and what it missed can be redelivered. So is
// an endpoint whose only event is retried to the end of its 3-day window, though its failing began
// at the first attempt, after the event. The domain clock jumps the 3 days (attempts themselves run
// on BullMQ's real delays).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINT_DISABLED_SUBJECT } from '../../shared/webhooks/disabled-notice.js';
import { enqueueDelivery } from '../../shared/webhooks/enqueue.js';
import { api, expectFailure } from '../console/helpers.js';
import { offsetClock } from '../support/gateway.js';
import { waitUntil } from '../support/http.js';
import { createVideo, videoBody, waitSettled } from '../support/task-gateway.js';
import {
  createEndpoint,
  owner,
  startReceiver,
  startWebhookGateway,
  waitDelivery,
  writeTaskEvent,
  type Receiver,
  type WebhookGateway,
} from './support.js';

const clock = offsetClock();
let gw: WebhookGateway;
let receiver: Receiver;
beforeAll(async () => {
  // Retries 200 ms apart and more, so the clock moves between two attempts.
  gw = await startWebhookGateway({ clock, env: { WEBHOOK_RETRY_BASE_MS: '200' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await gw?.close();
});

const mailsTo = (email: string) =>
  gw.smtp.inbox.filter((m) => m.to === email && m.data.includes(ENDPOINT_DISABLED_SUBJECT));

describe('an endpoint failing for 3 days', () => {
  it('is disabled, its pending deliveries fail, its owner is mailed once; enabled again it receives', async () => {
    const a = await owner(gw);
    const created = await createEndpoint(gw, a.token, {
      url: `${receiver.origin}/down`,
      events: ['webhook.test', 'video.completed'],
    });
    const endpoint = created.json.data as { id: string };
    receiver.answerAlways(500);
    const first = (await api(gw, 'POST', `/webhooks/${endpoint.id}/test`, { token: a.token })).json.data;
    const second = (await api(gw, 'POST', `/webhooks/${endpoint.id}/test`, { token: a.token })).json.data;
    await receiver.waitFor(2);
    // The receiver has answered; the worker records the failure just after.
    const read = async () => (await api(gw, 'GET', `/webhooks/${endpoint.id}`, { token: a.token })).json.data;
    await waitUntil(async () => (await read()).failing_since !== null, 10_000);
    const failing = await read();
    expect(failing).toMatchObject({ enabled: true, failing_since: expect.any(String) });

    clock.advance(3 * 24 * 3600_000 + 60_000);
    await waitUntil(async () => !(await read()).enabled, 10_000);
    const disabled = await read();
    expect(disabled).toMatchObject({
      enabled: false,
      disabled_reason: 'failing',
      failing_since: failing.failing_since,
    });
    for (const delivery of [first, second]) {
      const view = await waitDelivery(gw, a.token, endpoint.id, (d) => d.id === delivery.id && d.status === 'failed');
      expect(view.next_attempt_at).toBeNull();
      expect(view.last_error).toEqual(expect.any(String));
    }
    await waitUntil(() => mailsTo(a.email).length === 1, 10_000);
    expect(mailsTo(a.email)[0]!.data).toContain(endpoint.id);

    // Disabled: no test events, and task ends are not even queued for it.
    expectFailure(await api(gw, 'POST', `/webhooks/${endpoint.id}/test`, { token: a.token }), 409, 'conflict');
    const task = await createVideo(gw, a.key, videoBody('while the endpoint is off'));
    await waitSettled(gw, task.json.id as string);
    const deliveries = (await api(gw, 'GET', `/webhooks/${endpoint.id}/deliveries`, { token: a.token })).json;
    expect(deliveries.list.map((d: { event_type: string }) => d.event_type)).toEqual(['webhook.test', 'webhook.test']);

    // Fixed and enabled again: it receives, and what failed can be sent again.
    receiver.answerAlways(204);
    const enabled = await api(gw, 'PATCH', `/webhooks/${endpoint.id}`, { token: a.token, body: { enabled: true } });
    expect(enabled.json.data).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
    const redelivered = await api(gw, 'POST', `/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`, {
      token: a.token,
    });
    expect(redelivered.status, JSON.stringify(redelivered.json)).toBe(202);
    await waitDelivery(gw, a.token, endpoint.id, (d) => d.id === first.id && d.status === 'delivered');
    expect(mailsTo(a.email)).toHaveLength(1);
  });

  it('is disabled, and its owner mailed, when its only event is retried to the end of its window and fails', async () => {
    const a = await owner(gw);
    const created = await createEndpoint(gw, a.token, {
      url: `${receiver.origin}/window`,
      events: ['video.completed'],
    });
    const endpoint = created.json.data as { id: string };
    receiver.answerAlways(500);
    // The event a minute before its first attempt (a busy queue): the failing starts at that
    // attempt, a minute into the event's 3-day window, so the window ends before 3 days of failing.
    const eventAt = clock.now() - 60_000;
    const [deliveryId] = await writeTaskEvent(gw, a.userId, 'task_window', new Date(eventAt));
    await enqueueDelivery(gw.services.jobs, deliveryId!, 0);
    const read = async () => (await api(gw, 'GET', `/webhooks/${endpoint.id}`, { token: a.token })).json.data;
    await waitUntil(async () => (await read()).failing_since !== null, 10_000);
    const failingSince = Date.parse((await read()).failing_since);
    expect(failingSince - eventAt).toBeGreaterThanOrEqual(59_000);

    // The next attempt lands past the window's end (retry_until) and 30 s short of 3 days of failing.
    clock.advance(3 * 24 * 3600_000 - 30_000);
    const ended = await waitDelivery(gw, a.token, endpoint.id, (d) => d.id === deliveryId && d.status === 'failed');
    const last = Date.parse(ended.attempts.at(-1).attempted_at);
    expect(last).toBeGreaterThanOrEqual(eventAt + 3 * 24 * 3600_000);
    expect(last - failingSince).toBeLessThan(3 * 24 * 3600_000);
    expect(await read()).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    await waitUntil(() => mailsTo(a.email).length === 1, 10_000);
    expect(mailsTo(a.email)[0]!.data).toContain(endpoint.id);
    expect(receiver.received.filter((r) => r.path === '/window')).toHaveLength(ended.attempt_count);
  });
});
