// A task that does not deliver costs nothing: upstream failure, a submit refused until the attempts
// run out (5xx) or at once (4xx), and a cancel. The reservation is released each time, so the
// money is there for the next task.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../support/http.js';
import { errorOf, postJson } from '../support/limits.js';
import { expectConsistentLedger, usersBalance } from '../support/money.js';
import {
  chargeRows,
  createVideo,
  promoteDelayed,
  readTask,
  reservationHeld,
  startTaskGateway,
  taskRow,
  videoBody,
  VIDEO_PER_SECOND,
  VIDEO_UPSTREAM,
  waitRow,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

const PRICE = 5 * VIDEO_PER_SECOND['720p']!;
let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway();
});
afterAll(() => gw?.close());

/** Money for exactly one task: while it runs a second is refused, after it ended unpaid one fits again. */
async function oneTaskAccount() {
  return gw.account({ balance: PRICE });
}

async function expectNothingChargedAndMoneyBack(a: { userId: string; key: string }, taskId: string) {
  expect(await chargeRows(gw, a.userId)).toEqual([]);
  await expectConsistentLedger(gw.services.db, a.userId);
  expect(await usersBalance(gw.services.db, a.userId)).toBe(PRICE);
  expect(await reservationHeld(gw, a.userId, taskId)).toBe(false);
  // The released money pays for the next task (which is then charged normally).
  const next = await createVideo(gw, a.key, videoBody('the next one'));
  expect(next.status, JSON.stringify(next.json)).toBe(200);
  const row = await waitSettled(gw, next.json.id as string);
  expect(row.status).toBe('succeeded');
  expect((await chargeRows(gw, a.userId)).map((c) => [c.request_id, c.amount_micro_usd])).toEqual([
    [next.json.id, -PRICE],
  ]);
  expect(await usersBalance(gw.services.db, a.userId)).toBe(0);
}

describe('upstream failure', () => {
  it('the upstream task fails → failed with its error, nothing charged, reservation released', async () => {
    const a = await oneTaskAccount();
    const created = await createVideo(gw, a.key, videoBody('[[sim:taskFault=fail]] doomed'));
    expect(created.status).toBe(200);
    const id = created.json.id as string;
    // While it runs, its money is set aside: a second task does not fit.
    expect(await reservationHeld(gw, a.userId, id)).toBe(true);
    const refused = await createVideo(gw, a.key, videoBody('no money left'));
    expect(refused.status).toBe(402);
    expect(errorOf(refused).code).toBe('insufficient_balance');

    const row = await waitSettled(gw, id);
    expect(row.status).toBe('failed');
    const view = (await readTask(gw, a.key, id)).json;
    expect(view.status).toBe('failed');
    expect(view.error).toEqual({ code: expect.any(String), message: expect.any(String) });
    expect(view.error.message.length).toBeGreaterThan(0);
    expect(view.stored_url).toBeUndefined();
    expect(view.charged_micro_usd).toBeUndefined();
    await expectNothingChargedAndMoneyBack(a, id);
  });

  it('a submit answered 500 every time → failed once the attempts run out, nothing charged', async () => {
    const a = await oneTaskAccount();
    const before = gw.sim.stats().tasks['content-tasks'];
    const created = await createVideo(gw, a.key, videoBody('[[sim:taskFault=submit500]] never accepted'));
    const id = created.json.id as string;
    // Each retry waits out an exponential backoff (minutes in all); run them now instead.
    const deadline = Date.now() + 20_000;
    while ((await taskRow(gw, id))?.stage === 'submit') {
      if (Date.now() > deadline) throw new Error('submit attempts did not run out');
      await promoteDelayed(gw, 'task-submit', id);
      await sleep(50);
    }
    const row = await waitSettled(gw, id);
    expect(row.status).toBe('failed');
    expect(row.error_code).toBe('upstream_rejected');
    expect(row.upstream_id).toBeNull();
    expect(row.submit_attempts).toBe(8);
    const after = gw.sim.stats().tasks['content-tasks'];
    expect(after.taskCreateRequests - before.taskCreateRequests).toBe(8);
    expect(after.taskCreates - before.taskCreates).toBe(0);
    await expectNothingChargedAndMoneyBack(a, id);
  });

  it('a submit refused with a 4xx fails at once (not retried), nothing charged', async () => {
    const a = await oneTaskAccount();
    const before = gw.sim.stats().tasks['content-tasks'];
    // The simulator answers 400 InvalidParameter for a directive it cannot read.
    const created = await createVideo(gw, a.key, videoBody('[[sim:taskFault=sometimes]] unreadable'));
    const row = await waitSettled(gw, created.json.id as string, 5_000);
    expect(row.status).toBe('failed');
    expect(row.error_code).toBe('upstream_rejected');
    expect(row.submit_attempts).toBe(1);
    expect(gw.sim.stats().tasks['content-tasks'].taskCreateRequests - before.taskCreateRequests).toBe(1);
    await expectNothingChargedAndMoneyBack(a, row.id);
  });

  it('a submit answered 500 and then accepted is submitted once and charged once', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const before = gw.sim.stats().tasks['content-tasks'];
    gw.sim.setModel(VIDEO_UPSTREAM, { taskFault: 'submit500' });
    let id: string;
    try {
      const created = await createVideo(gw, a.key, videoBody('flaky provider'));
      id = created.json.id as string;
      await waitRow(gw, id, (r) => r.submit_attempts >= 2, 10_000);
    } finally {
      gw.sim.setModel(VIDEO_UPSTREAM, {});
    }
    await promoteDelayed(gw, 'task-submit', id);
    const row = await waitSettled(gw, id);
    expect(row.status).toBe('succeeded');
    const after = gw.sim.stats().tasks['content-tasks'];
    expect(after.taskCreates - before.taskCreates).toBe(1);
    expect(after.taskCreateRequests - before.taskCreateRequests).toBe(row.submit_attempts);
    expect((await chargeRows(gw, a.userId)).map((c) => c.amount_micro_usd)).toEqual([-PRICE]);
  });
});

describe('POST /v1/videos/{id}/cancel', () => {
  it('while running: cancelled here and upstream, nothing charged, reservation released', async () => {
    const a = await oneTaskAccount();
    const created = await createVideo(gw, a.key, videoBody('[[sim:taskRunMs=60000]] a very long film'));
    const id = created.json.id as string;
    const polling = await waitRow(gw, id, (r) => r.stage === 'poll' && r.upstream_id !== null, 10_000);
    const cancelsBefore = gw.sim.stats().tasks['content-tasks'].taskCancels;

    const res = await postJson(gw, `/v1/videos/${id}/cancel`, a.key, {});
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({ id, status: 'cancelled' });
    expect(gw.sim.stats().tasks['content-tasks'].taskCancels - cancelsBefore).toBe(1);
    expect(gw.sim.tasks().find((t) => t.id === polling.upstream_id)?.status).toBe('cancelled');

    const row = await waitSettled(gw, id);
    expect(row.status).toBe('cancelled');
    expect((await readTask(gw, a.key, id)).json.status).toBe('cancelled');
    // Cancelling again answers the cancelled task; nothing else happens.
    const again = await postJson(gw, `/v1/videos/${id}/cancel`, a.key, {});
    expect(again.status).toBe(200);
    expect(again.json.status).toBe('cancelled');
    expect(gw.sim.stats().tasks['content-tasks'].taskCancels - cancelsBefore).toBe(1);
    await expectNothingChargedAndMoneyBack(a, id);
  });

  it('before the submit: cancelled, nothing ever reaches the upstream', async () => {
    const a = await oneTaskAccount();
    await gw.stopWorkers();
    let id: string;
    const creates = gw.sim.stats().tasks['content-tasks'].taskCreateRequests;
    try {
      const created = await createVideo(gw, a.key, videoBody('changed my mind at once'));
      id = created.json.id as string;
      const res = await postJson(gw, `/v1/videos/${id}/cancel`, a.key, {});
      expect(res.status).toBe(200);
      expect(res.json.status).toBe('cancelled');
    } finally {
      gw.startWorkers();
    }
    const row = await waitSettled(gw, id);
    expect(row.status).toBe('cancelled');
    expect(row.upstream_id).toBeNull();
    // The submit job still queued finds the task cancelled and does nothing.
    await sleep(300);
    expect(gw.sim.stats().tasks['content-tasks'].taskCreateRequests).toBe(creates);
    await expectNothingChargedAndMoneyBack(a, id);
  });

  it('during the submit (upstream task made, answer not back yet): the upstream task is cancelled when it lands', async () => {
    const a = await oneTaskAccount();
    const created = await createVideo(
      gw,
      a.key,
      videoBody('[[sim:latencyMs=1000,taskRunMs=60000]] changed my mind mid-submit'),
    );
    const id = created.json.id as string;
    // The simulator has made the task but not answered yet.
    let upstream: { id: string } | undefined;
    const until = Date.now() + 5_000;
    while (!(upstream = gw.sim.tasks().find((t) => t.idempotencyKey === id))) {
      if (Date.now() > until) throw new Error('the submit never reached the simulator');
      await sleep(10);
    }
    expect((await taskRow(gw, id))?.upstream_id).toBeNull();
    const res = await postJson(gw, `/v1/videos/${id}/cancel`, a.key, {});
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('cancelled');
    const row = await waitSettled(gw, id);
    expect(row.status).toBe('cancelled');
    // When the create's answer lands, the worker cancels what it just made.
    const cancelled = Date.now() + 5_000;
    while (gw.sim.tasks().find((t) => t.id === upstream!.id)?.status !== 'cancelled') {
      if (Date.now() > cancelled) throw new Error('the upstream task was left running');
      await sleep(20);
    }
    expect(gw.sim.tasks().filter((t) => t.idempotencyKey === id)).toHaveLength(1);
    expect((await taskRow(gw, id))?.status).toBe('cancelled');
    await expectNothingChargedAndMoneyBack(a, id);
  });

  it('a finished task cannot be cancelled (409) and stays charged', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const created = await createVideo(gw, a.key, videoBody('done already'));
    const id = created.json.id as string;
    await waitSettled(gw, id);
    const res = await postJson(gw, `/v1/videos/${id}/cancel`, a.key, {});
    expect(res.status).toBe(409);
    expect((await readTask(gw, a.key, id)).json.status).toBe('succeeded');
    expect((await chargeRows(gw, a.userId)).map((c) => c.amount_micro_usd)).toEqual([-PRICE]);
  });

  it('a client that stops polling cancels nothing: the task finishes and is charged', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const created = await createVideo(gw, a.key, videoBody('nobody is watching'));
    // No reads at all after the create.
    const row = await waitSettled(gw, created.json.id as string);
    expect(row.status).toBe('succeeded');
    expect((await chargeRows(gw, a.userId)).map((c) => c.amount_micro_usd)).toEqual([-PRICE]);
  });
});
