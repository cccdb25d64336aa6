// One Idempotency-Key, many identical creating calls at the same instant (a client's retries
// racing each other): one task, one upstream submit, one charge, and every caller gets the same
// answer. Postgres' unique key decides, not a check-then-insert.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf } from '../support/limits.js';
import { expectConsistentLedger, usersBalance } from '../support/money.js';
import {
  chargeRows,
  createVideo,
  readTask,
  startTaskGateway,
  taskRows,
  videoBody,
  VIDEO_PER_SECOND,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway();
});
afterAll(() => gw?.close());

const PRICE = 5 * VIDEO_PER_SECOND['720p']!;

describe('100 concurrent identical POST /v1/videos with one Idempotency-Key', () => {
  it('make one task, one upstream submit and one charge; all 100 get the same body, 99 marked replayed', async () => {
    const funds = 200 * PRICE;
    const a = await gw.account({ balance: funds });
    // The upstream task runs 2 s: its reservation is still held when the burst is checked.
    const body = videoBody('[[sim:taskRunMs=2000]] one and only', { duration: 5, resolution: '720p' });
    const headers = { 'idempotency-key': 'retry-storm-1' };
    const before = gw.sim.stats().tasks['content-tasks'];

    const replies = await Promise.all(Array.from({ length: 100 }, () => createVideo(gw, a.key, body, headers)));
    for (const r of replies) expect(r.status, JSON.stringify(r.json)).toBe(200);
    const first = replies[0]!.json;
    for (const r of replies) expect(r.json).toEqual(first);
    const replayed = replies.filter((r) => r.headers.get('idempotent-replayed') === 'true');
    expect(replayed).toHaveLength(99);
    expect(replies.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(first).toMatchObject({ object: 'video', status: 'queued', model: 'vid-sim' });

    const rows = await taskRows(gw, a.userId);
    expect(rows.map((t) => t.id)).toEqual([first.id]);
    const keys = await gw.services.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('user_id', '=', a.userId)
      .execute();
    expect(keys.map((k) => [k.key, k.task_id])).toEqual([['retry-storm-1', first.id]]);
    // The 99 losers gave their reservations back at once: only one is held.
    expect(await gw.services.redis.hkeys(gw.services.redisKeys.reservations(a.userId))).toEqual([first.id]);

    const row = await waitSettled(gw, first.id as string);
    expect(row.status).toBe('succeeded');
    const after = gw.sim.stats().tasks['content-tasks'];
    expect(after.taskCreates - before.taskCreates).toBe(1);
    expect(after.taskCreateRequests - before.taskCreateRequests).toBe(1);

    const charges = await expectConsistentLedger(gw.services.db, a.userId);
    expect(charges.map((c) => [c.request_id, c.amount_micro_usd])).toEqual([[first.id, -PRICE]]);
    expect(await usersBalance(gw.services.db, a.userId)).toBe(funds - PRICE);

    // A replay after the task finished still answers the first result, and changes nothing.
    const late = await createVideo(gw, a.key, body, headers);
    expect(late.status).toBe(200);
    expect(late.headers.get('idempotent-replayed')).toBe('true');
    expect(late.json).toEqual(first);
    expect((await readTask(gw, a.key, first.id as string)).json.status).toBe('succeeded');
    expect(await taskRows(gw, a.userId)).toHaveLength(1);
    expect(await chargeRows(gw, a.userId)).toHaveLength(1);
    expect(gw.sim.stats().tasks['content-tasks'].taskCreateRequests - before.taskCreateRequests).toBe(1);
  });

  it('a replay is answered even when the account could not afford a second task', async () => {
    // Money for exactly one task: the duplicates must not be refused for lack of balance.
    const a = await gw.account({ balance: PRICE });
    const body = videoBody('just enough money');
    const headers = { 'idempotency-key': 'tight-budget' };
    const replies = await Promise.all(Array.from({ length: 20 }, () => createVideo(gw, a.key, body, headers)));
    const statuses = replies.map((r) => (r.status === 200 ? 200 : `${r.status} ${errorOf(r).code}`));
    expect(statuses).toEqual(Array(20).fill(200));
    const ids = new Set(replies.map((r) => r.json.id));
    expect(ids.size).toBe(1);
    const row = await waitSettled(gw, [...ids][0] as string);
    expect(row.status).toBe('succeeded');
    expect(await usersBalance(gw.services.db, a.userId)).toBe(0);
    // Sequential retries after the first was accepted are replays too, not 402s.
    const again = await createVideo(gw, a.key, body, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('the same key on another API key, or another endpoint, is a different operation', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const { key: secondKey } = await createSecondKey(a.userId);
    const headers = { 'idempotency-key': 'shared-name' };
    const one = await createVideo(gw, a.key, videoBody('scope one'), headers);
    const two = await createVideo(gw, secondKey, videoBody('scope two'), headers);
    expect(one.status).toBe(200);
    expect(two.status).toBe(200);
    expect(two.headers.get('idempotent-replayed')).toBeNull();
    expect(two.json.id).not.toBe(one.json.id);
    const image = await fetch(`${gw.url}/v1/images/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${a.key}`, ...headers },
      body: JSON.stringify({ model: 'img-task-sim', prompt: 'scope three' }),
    });
    expect(image.status).toBe(200);
    expect(image.headers.get('idempotent-replayed')).toBeNull();
    for (const id of [one.json.id, two.json.id, ((await image.json()) as { id: string }).id])
      await waitSettled(gw, id as string);
  });
});

async function createSecondKey(userId: string) {
  const { createKey } = await import('../../shared/keys/manage-keys.js');
  const s = gw.services;
  const { key } = await createKey(
    { db: s.db, redis: s.redis, channel: s.redisKeys.keyInvalidation, catalog: s.catalog },
    userId,
    {},
  );
  return { key };
}
