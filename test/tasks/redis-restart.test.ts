// Redis restarted without persistence while tasks run: every queued, delayed and active job is
// gone, but the tasks live in Postgres. The maintenance reconciler re-enqueues each task's next job,
// so every task still finishes, is submitted upstream once and is charged once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, waitUntil } from '../support/http.js';
import { startRedisServer, type RedisServer } from '../support/limits.js';
import { expectConsistentLedger, usersBalance } from '../support/money.js';
import { freePort } from '../support/processes.js';
import {
  createVideo,
  startTaskGateway,
  taskRow,
  taskRows,
  videoBody,
  VIDEO_PER_SECOND,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

const PRICE = 5 * VIDEO_PER_SECOND['720p']!;
let port: number;
let redis: RedisServer | undefined;
let gw: TaskGateway;

beforeAll(async () => {
  port = await freePort();
  redis = await startRedisServer(port);
  gw = await startTaskGateway({
    env: { REDIS_URL: `redis://127.0.0.1:${port}`, TASK_RECONCILE_AFTER_MS: '1500', MAINTENANCE_EVERY_MS: '300' },
  });
});
afterAll(async () => {
  redis ??= await startRedisServer(port); // closing the gateway cleans its Redis keys
  await gw?.close();
  await redis.kill();
});

describe('Redis restarted (data lost) while tasks run', () => {
  it('loses no task: each ends succeeded, submitted upstream once, charged once', { timeout: 60_000 }, async () => {
    const funds = 100 * PRICE;
    const a = await gw.account({ balance: funds });
    const ids: string[] = [];
    // Some will be polling when Redis goes (the upstream takes ~5 s) ...
    for (let i = 0; i < 6; i++) {
      const res = await createVideo(gw, a.key, videoBody(`[[sim:taskRunMs=${4_000 + i * 300}]] polling ${i}`));
      expect(res.status).toBe(200);
      ids.push(res.json.id as string);
    }
    await waitUntil(
      async () => (await Promise.all(ids.map((id) => taskRow(gw, id)))).every((r) => r?.stage === 'poll'),
      10_000,
      50,
    );
    // ... and some in the middle of their submit (the upstream answers the create after 4 s).
    for (let i = 0; i < 3; i++) {
      const res = await createVideo(gw, a.key, videoBody(`[[sim:latencyMs=4000,taskRunMs=1000]] submitting ${i}`));
      expect(res.status).toBe(200);
      ids.push(res.json.id as string);
    }
    await waitUntil(() => gw.sim.tasks().filter((t) => ids.includes(t.idempotencyKey ?? '')).length === 9, 5_000, 10);
    const stages = (await Promise.all(ids.map((id) => taskRow(gw, id)))).map((r) => r!.stage);
    expect(stages.filter((s) => s === 'poll')).toHaveLength(6);
    expect(stages.filter((s) => s === 'submit')).toHaveLength(3);

    await redis!.kill();
    redis = undefined;
    await sleep(500);
    redis = await startRedisServer(port);
    const restarted = performance.now();

    for (const id of ids) {
      const row = await waitSettled(gw, id, 30_000);
      expect(row.status, `${id} ${row.error_code} ${row.error_message} attempts=${row.submit_attempts}`).toBe(
        'succeeded',
      );
    }
    console.log(`all ${ids.length} tasks settled ${Math.round(performance.now() - restarted)} ms after the restart`);

    const stats = gw.sim.stats().tasks['content-tasks'];
    expect(stats.taskCreates).toBe(ids.length);
    expect(new Set(gw.sim.tasks().map((t) => t.idempotencyKey)).size).toBe(ids.length);
    const charges = await expectConsistentLedger(gw.services.db, a.userId);
    expect(charges.map((c) => c.request_id).sort()).toEqual([...ids].sort());
    expect(charges.every((c) => c.amount_micro_usd === -PRICE)).toBe(true);
    expect(await usersBalance(gw.services.db, a.userId)).toBe(funds - ids.length * PRICE);
    expect((await taskRows(gw, a.userId)).every((t) => t.stage === 'done')).toBe(true);

    // And the platform works as before for new tasks.
    const after = await createVideo(gw, a.key, videoBody('after the restart'));
    expect(after.status).toBe(200);
    expect((await waitSettled(gw, after.json.id as string)).status).toBe('succeeded');
  });
});
