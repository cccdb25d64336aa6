// Webhook deliveries against a real receiver: task ends announced once and signed per Standard
// Webhooks (checked by the standardwebhooks package and both client libraries), retries with
// backoff and the same webhook-id, redirects not followed, rotation's two signatures, redelivery,
// the outbox written in the task's own transaction, the sweep that finds a lost job, and accounts
// kept apart.
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../clients/typescript/src/index.js';
import { endTask } from '../../shared/tasks/end-task.js';
import { newWebhookSecret } from '../../shared/webhooks/signature.js';
import { api, expectFailure } from '../console/helpers.js';
import { postJson } from '../support/limits.js';
import { createVideo, IMAGE_MODEL, taskRow, videoBody, waitRow, waitSettled } from '../support/task-gateway.js';
import {
  createEndpoint,
  startReceiver,
  startWebhookGateway,
  subscribedOwner,
  verifyWithPython,
  waitDelivery,
  writeTaskEvent,
  type Receiver,
  type WebhookGateway,
} from './support.js';

let gw: WebhookGateway;
let receiver: Receiver;
beforeAll(async () => {
  gw = await startWebhookGateway();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await gw?.close();
});

/** A fresh account with one endpoint at `<receiver><path>` subscribed to `events`. */
const subscribed = (events: string[], path: string, to: Receiver = receiver) => subscribedOwner(gw, to, events, path);

const at = (path: string) => (r: { path: string }) => r.path === path;

function eventsOf(subjectIds: string[]) {
  return gw.services.db
    .selectFrom('webhook_events')
    .selectAll()
    .where('subject_id', 'in', subjectIds)
    .orderBy('created_at')
    .execute();
}

describe('a task that ends', () => {
  it('is announced once, with the contract body, signed per Standard Webhooks', async () => {
    const a = await subscribed(['video.completed'], '/done');
    const created = await createVideo(gw, a.key, videoBody('a lighthouse at dusk'));
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const taskId = created.json.id as string;
    const row = await waitSettled(gw, taskId);
    expect(row.status).toBe('succeeded');

    const [delivery] = await receiver.waitFor(1, at('/done'));
    const body = JSON.parse(delivery!.body);
    expect(body).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Za-z]{24}$/),
      object: 'event',
      type: 'video.completed',
      created_at: Math.floor(row.finished_at!.getTime() / 1000),
      data: { id: taskId, object: 'video' },
    });
    const headers = delivery!.headers;
    expect(headers['webhook-id']).toBe(body.id);
    expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toMatch(/^model-gateway-webhooks\//);

    const secret = a.endpoint.secret;
    expect(new Webhook(secret).verify(delivery!.body, headers)).toEqual(body);
    expect(verifyWebhook(delivery!.body, headers, secret)).toEqual(body);
    expect(await verifyWithPython(delivery!.body, headers, secret)).toEqual({ event: body });
    expect(() => new Webhook(newWebhookSecret()).verify(delivery!.body, headers)).toThrow();
    expect((await verifyWithPython(delivery!.body, headers, newWebhookSecret())).refused).toMatch(/signature/);

    const view = await waitDelivery(gw, a.token, a.endpoint.id, (d) => d.status === 'delivered');
    expect(view).toMatchObject({
      id: expect.stringMatching(/^whd_/),
      object: 'webhook_delivery',
      endpoint_id: a.endpoint.id,
      event_id: body.id,
      event_type: 'video.completed',
      attempt_count: 1,
      next_attempt_at: null,
      delivered_at: expect.any(String),
    });
    expect(view.attempts).toEqual([
      {
        attempted_at: expect.any(String),
        status_code: 204,
        duration_ms: expect.any(Number),
        response_excerpt: '',
        error: null,
      },
    ]);
    expect((await eventsOf([taskId])).map((e) => e.type)).toEqual(['video.completed']);
  });

  it('failed, cancelled and image tasks: each its event, only to the endpoints subscribed to it', async () => {
    const a = await subscribed(['video.failed', 'video.cancelled', 'image_task.completed'], '/mixed');
    const other = await createEndpoint(gw, a.token, {
      url: `${receiver.origin}/mixed-other`,
      events: ['video.completed'],
    });
    const failed = await createVideo(gw, a.key, videoBody('[[sim:taskFault=fail]] doomed'));
    const long = await createVideo(gw, a.key, videoBody('[[sim:taskRunMs=60000]] patient'));
    const image = await postJson(gw, '/v1/images/tasks', a.key, {
      model: IMAGE_MODEL,
      prompt: 'a fox',
      n: 1,
      size: '512x512',
    });
    for (const reply of [failed, long, image]) expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    await waitRow(gw, long.json.id as string, (r) => r.stage === 'poll');
    expect((await postJson(gw, `/v1/videos/${long.json.id}/cancel`, a.key, {})).status).toBe(200);

    const ids = [failed, long, image].map((r) => r.json.id as string);
    for (const id of ids) await waitSettled(gw, id);
    const got = (await receiver.waitFor(3, at('/mixed'))).map((r) => JSON.parse(r.body));
    const byTask = Object.fromEntries(got.map((e) => [e.data.id, [e.type, e.data.object]]));
    expect(byTask).toEqual({
      [ids[0]!]: ['video.failed', 'video'],
      [ids[1]!]: ['video.cancelled', 'video'],
      [ids[2]!]: ['image_task.completed', 'image.task'],
    });
    // Every task that ended has exactly its one event; the endpoint subscribed elsewhere got none.
    expect((await eventsOf(ids)).map((e) => [e.subject_id, e.type]).sort()).toEqual(
      [
        [ids[0], 'video.failed'],
        [ids[1], 'video.cancelled'],
        [ids[2], 'image_task.completed'],
      ].sort(),
    );
    const quiet = await api(gw, 'GET', `/webhooks/${other.json.data.id}/deliveries`, { token: a.token });
    expect(quiet.json.total).toBe(0);
    expect(receiver.received.filter(at('/mixed-other'))).toEqual([]);
  });

  it('writes its event in the transaction that ends it: no event, no end', async () => {
    const a = await subscribed(['video.completed'], '/atomic');
    const created = await createVideo(gw, a.key, videoBody('[[sim:taskRunMs=60000]] held in poll'));
    const id = created.json.id as string;
    await waitRow(gw, id, (r) => r.stage === 'poll');
    const end = () =>
      endTask(gw.services.db, id, ['poll'], { status: 'succeeded', stage: 'settle', finished_at: new Date() });

    // A constraint that refuses every event: the task's end is rolled back with it.
    await sql`ALTER TABLE webhook_events ADD CONSTRAINT refuse_all CHECK (false) NOT VALID`.execute(gw.services.db);
    try {
      await expect(end()).rejects.toThrow(/refuse_all/);
    } finally {
      await sql`ALTER TABLE webhook_events DROP CONSTRAINT refuse_all`.execute(gw.services.db);
    }
    expect(await taskRow(gw, id)).toMatchObject({ stage: 'poll', finished_at: null });
    expect(await eventsOf([id])).toEqual([]);

    // Once the event can be written, the end and its event commit together; the task's settle
    // (re-driven by the reconciler: this test skipped the job that would follow) sends it.
    expect(await end()).toMatchObject({ status: 'succeeded', stage: 'settle' });
    expect((await eventsOf([id])).map((e) => e.type)).toEqual(['video.completed']);
    const [delivery] = await receiver.waitFor(1, at('/atomic'));
    expect(JSON.parse(delivery!.body).data).toEqual({ id, object: 'video' });
  });
});

describe('delivery', () => {
  it('retries a failing receiver with backoff, the same webhook-id each time, every attempt recorded', async () => {
    const flaky = await startReceiver();
    try {
      const a = await subscribed(['webhook.test'], '/flaky', flaky);
      flaky.answer(500, { status: 503, body: 'é'.repeat(3_000) }, 204);
      expect((await api(gw, 'POST', `/webhooks/${a.endpoint.id}/test`, { token: a.token })).status).toBe(202);
      const requests = await flaky.waitFor(3);
      const ids = new Set(requests.map((r) => r.headers['webhook-id']));
      expect(ids.size).toBe(1);
      for (const r of requests)
        expect(new Webhook(a.endpoint.secret).verify(r.body, r.headers)).toMatchObject({ type: 'webhook.test' });
      expect(JSON.parse(requests[0]!.body).data).toEqual({ id: a.endpoint.id, object: 'webhook_endpoint' });
      // WEBHOOK_RETRY_BASE_MS=50 (±10 %), doubling.
      expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(30);
      expect(requests[2]!.at - requests[1]!.at).toBeGreaterThanOrEqual(70);

      const view = await waitDelivery(gw, a.token, a.endpoint.id, (d) => d.status === 'delivered');
      expect(view.attempt_count).toBe(3);
      expect(view.attempts.map((t: { status_code: number }) => t.status_code)).toEqual([500, 503, 204]);
      expect(view.attempts.map((t: { error: string | null }) => t.error)).toEqual([
        'answered 500',
        'answered 503',
        null,
      ]);
      const excerpt = view.attempts[1].response_excerpt as string;
      expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(1024);
      expect(excerpt).toMatch(/^é{500,}$/);
    } finally {
      await flaky.close();
    }
  });

  it('takes a redirect as an answer that failed, never following it', async () => {
    const moving = await startReceiver();
    try {
      const a = await subscribed(['webhook.test'], '/moved', moving);
      moving.answer({ status: 302, headers: { location: `${moving.origin}/elsewhere` } });
      await api(gw, 'POST', `/webhooks/${a.endpoint.id}/test`, { token: a.token });
      const view = await waitDelivery(gw, a.token, a.endpoint.id, (d) => d.status === 'delivered');
      expect(view.attempts.map((t: { status_code: number }) => t.status_code)).toEqual([302, 204]);
      expect(view.attempts[0].error).toMatch(/redirects are not followed/);
      expect(moving.received.map((r) => r.path)).toEqual(['/moved', '/moved']);
    } finally {
      await moving.close();
    }
  });

  it('ends the pending deliveries of an endpoint its owner disables', async () => {
    const down = await startReceiver();
    try {
      down.answerAlways(500);
      const a = await subscribed(['webhook.test'], '/off', down);
      const { id } = (await api(gw, 'POST', `/webhooks/${a.endpoint.id}/test`, { token: a.token })).json.data;
      await waitDelivery(gw, a.token, a.endpoint.id, (d) => d.attempts.length > 0);
      await api(gw, 'PATCH', `/webhooks/${a.endpoint.id}`, { token: a.token, body: { enabled: false } });
      const ended = (await api(gw, 'GET', `/webhooks/${a.endpoint.id}/deliveries`, { token: a.token })).json.list[0];
      expect(ended).toMatchObject({
        id,
        status: 'failed',
        next_attempt_at: null,
        last_error: expect.stringMatching(/disabled by its owner/),
      });
    } finally {
      await down.close();
    }
  });

  it('signs with both secrets for 24 h after a rotation', async () => {
    const a = await subscribed(['webhook.test'], '/rotated');
    const rotated = await api(gw, 'POST', `/webhooks/${a.endpoint.id}/rotate-secret`, { token: a.token });
    const [oldSecret, newSecret] = [a.endpoint.secret, rotated.json.data.secret as string];
    await api(gw, 'POST', `/webhooks/${a.endpoint.id}/test`, { token: a.token });
    const [delivery] = await receiver.waitFor(1, at('/rotated'));
    const { body, headers } = delivery!;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [oldSecret, newSecret]) {
      expect(new Webhook(secret).verify(body, headers)).toMatchObject({ type: 'webhook.test' });
      expect(verifyWebhook(body, headers, secret)).toMatchObject({ type: 'webhook.test' });
      expect((await verifyWithPython(body, headers, secret)).event).toMatchObject({ type: 'webhook.test' });
    }
    expect(() => verifyWebhook(body, headers, newWebhookSecret())).toThrow(/no signature/);
  });

  it('redelivers an event with the same webhook-id; a pending delivery is not redelivered again', async () => {
    const a = await subscribed(['webhook.test'], '/again');
    const first = (await api(gw, 'POST', `/webhooks/${a.endpoint.id}/test`, { token: a.token })).json.data;
    expect(first).toMatchObject({ status: 'pending', event_type: 'webhook.test' });
    await waitDelivery(gw, a.token, a.endpoint.id, (d) => d.status === 'delivered');

    receiver.answer('hold');
    const path = `/webhooks/${a.endpoint.id}/deliveries/${first.id}/redeliver`;
    const again = await api(gw, 'POST', path, { token: a.token });
    expect(again.status, JSON.stringify(again.json)).toBe(202);
    expect(again.json.data).toMatchObject({ id: first.id, status: 'pending', attempt_count: 1 });
    await receiver.waitFor(2, at('/again'));
    expectFailure(await api(gw, 'POST', path, { token: a.token }), 409, 'conflict');
    receiver.release();

    const view = await waitDelivery(
      gw,
      a.token,
      a.endpoint.id,
      (d) => d.status === 'delivered' && d.attempt_count === 2,
    );
    expect(view.attempts).toHaveLength(2);
    const ids = receiver.received.filter(at('/again')).map((r) => r.headers['webhook-id']);
    expect(ids).toEqual([first.event_id, first.event_id]);
    expectFailure(
      await api(gw, 'POST', `/webhooks/${a.endpoint.id}/deliveries/whd_${'0'.repeat(24)}/redeliver`, {
        token: a.token,
      }),
      404,
      'not_found',
    );
  });

  it('is made by the maintenance sweep when the job was lost after the commit', async () => {
    const a = await subscribed(['video.completed'], '/swept');
    // What a crash between the commit and the enqueue leaves: the event and its delivery, no job.
    const [deliveryId] = await writeTaskEvent(gw, a.userId, 'task_lost_job', new Date());
    expect(deliveryId).toMatch(/^whd_/);
    expect(await gw.services.jobs.queues.get('webhook')!.getJob(`webhook-${deliveryId}-0`)).toBeUndefined();
    // TASK_RECONCILE_AFTER_MS=2000 in the task gateway: the sweep takes it up about then.
    const [delivery] = await receiver.waitFor(1, at('/swept'), 10_000);
    expect(JSON.parse(delivery!.body).data).toEqual({ id: 'task_lost_job', object: 'video' });
  });
});

describe('accounts', () => {
  it("never receive another account's events", async () => {
    const a = await subscribed(['video.completed'], '/mine');
    const b = await subscribed(['video.completed'], '/theirs');
    const created = await createVideo(gw, b.key, videoBody('for b only'));
    await waitSettled(gw, created.json.id as string);
    const [delivery] = await receiver.waitFor(1, at('/theirs'));
    expect(JSON.parse(delivery!.body).data.id).toBe(created.json.id);
    expect(receiver.received.filter(at('/mine'))).toEqual([]);
    expect((await api(gw, 'GET', `/webhooks/${a.endpoint.id}/deliveries`, { token: a.token })).json.total).toBe(0);
  });
});
