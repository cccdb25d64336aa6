// A task that does not finish before its deadline (TASK_DEADLINE_MS) ends `expired`: polling
// stops, the upstream task is cancelled, nothing is charged and the reservation is released.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from '../support/limits.js';
import { expectConsistentLedger, usersBalance } from '../support/money.js';
import {
  chargeRows,
  createVideo,
  readTask,
  reservationHeld,
  startTaskGateway,
  videoBody,
  VIDEO_PER_SECOND,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

const DEADLINE_MS = 3_000;
const PRICE = 5 * VIDEO_PER_SECOND['720p']!;
let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway({ env: { TASK_DEADLINE_MS: String(DEADLINE_MS) } });
});
afterAll(() => gw?.close());

describe('task deadline', () => {
  it('a task still running at its deadline ends expired, upstream cancelled, nothing charged, money released', async () => {
    const a = await gw.account({ balance: PRICE });
    const created = await createVideo(gw, a.key, videoBody('[[sim:taskRunMs=120000]] an epic'));
    expect(created.status).toBe(200);
    const id = created.json.id as string;
    const started = Date.now();
    const row = await waitSettled(gw, id, 15_000);
    expect(row.status).toBe('expired');
    expect(Date.now() - started).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
    expect(row.error_code).toBe('task_expired');
    const view = (await readTask(gw, a.key, id)).json;
    expect(view).toMatchObject({ status: 'expired', error: { code: 'task_expired' } });
    expect(view.stored_url).toBeUndefined();
    // The upstream task was cancelled, and the gateway stopped polling it.
    expect(gw.sim.tasks().find((t) => t.id === row.upstream_id)?.status).toBe('cancelled');
    const polls = gw.sim.stats().tasks['content-tasks'].taskPolls;
    await new Promise((r) => setTimeout(r, 3_000));
    expect(gw.sim.stats().tasks['content-tasks'].taskPolls).toBe(polls);

    expect(await chargeRows(gw, a.userId)).toEqual([]);
    await expectConsistentLedger(gw.services.db, a.userId);
    expect(await usersBalance(gw.services.db, a.userId)).toBe(PRICE);
    expect(await reservationHeld(gw, a.userId, id)).toBe(false);
    // An expired task cannot be cancelled any more.
    expect((await postJson(gw, `/v1/videos/${id}/cancel`, a.key, {})).status).toBe(409);

    // The money is free for the next task, which finishes in time and is charged.
    const next = await createVideo(gw, a.key, videoBody('a short one'));
    expect(next.status, JSON.stringify(next.json)).toBe(200);
    const done = await waitSettled(gw, next.json.id as string);
    expect(done.status).toBe('succeeded');
    expect((await chargeRows(gw, a.userId)).map((c) => [c.request_id, c.amount_micro_usd])).toEqual([
      [next.json.id, -PRICE],
    ]);
  });
});
