// The maintenance reconciler: a task whose next job is gone — lost with Redis, or failed for good
// (BullMQ fails a job that stalled more than maxStalledCount times, i.e. whose worker died under it
// twice) — is re-enqueued from its Postgres row and finishes; running it again changes nothing.
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullPrefix } from '../../shared/jobs/queues.js';
import { createRedis } from '../../shared/redis/client.js';
import { sleep, waitUntil } from '../support/http.js';
import { expectConsistentLedger } from '../support/money.js';
import {
  createVideo,
  startTaskGateway,
  taskRow,
  videoBody,
  VIDEO_PER_SECOND,
  waitRow,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

const PRICE = 5 * VIDEO_PER_SECOND['720p']!;
let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway({
    workers: false,
    env: { TASK_RECONCILE_AFTER_MS: '1000', MAINTENANCE_EVERY_MS: '200' },
  });
});
afterAll(() => gw?.close());

/** Fails every job of `queue` for good, as BullMQ does to a job that stalled too often. */
async function failJobsOf(queue: 'task-submit' | 'task-poll', count: number): Promise<void> {
  const connection = createRedis(gw.services.config.redis, {
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    lazyConnect: false,
  });
  let failed = 0;
  const rogue = new Worker(
    queue,
    async () => {
      throw new UnrecoverableError('job stalled more than allowable limit');
    },
    { connection, prefix: bullPrefix(gw.services.config.redis.prefix) },
  );
  rogue.on('failed', () => failed++);
  try {
    await waitUntil(() => failed >= count, 5_000);
  } finally {
    await rogue.close();
    connection.disconnect();
  }
}

describe('maintenance reconciler', () => {
  it('re-enqueues a task whose submit job failed for good; the task finishes and is charged once', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const created = await createVideo(gw, a.key, videoBody('orphaned submit'));
    const id = created.json.id as string;
    await failJobsOf('task-submit', 1);
    const job = await gw.services.jobs.queues.get('task-submit')!.getJob(`task-submit-${id}-0`);
    expect(await job?.isFailed()).toBe(true);
    expect((await taskRow(gw, id))?.stage).toBe('submit');

    gw.startWorkers();
    try {
      const row = await waitSettled(gw, id, 15_000);
      expect(row.status).toBe('succeeded');
      expect(gw.sim.stats().tasks['content-tasks'].taskCreates).toBe(1);
      const charges = await expectConsistentLedger(gw.services.db, a.userId);
      expect(charges.map((c) => [c.request_id, c.amount_micro_usd])).toEqual([[id, -PRICE]]);
    } finally {
      await gw.stopWorkers();
    }
  });

  it('re-enqueues a task whose delayed poll job was lost, and one whose poll failed for good', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const lost = (await createVideo(gw, a.key, videoBody('[[sim:taskRunMs=500]] lost poll'))).json.id as string;
    const failed = (await createVideo(gw, a.key, videoBody('[[sim:taskRunMs=500]] failed poll'))).json.id as string;
    gw.startWorkers();
    await waitRow(gw, lost, (r) => r.stage === 'poll');
    await waitRow(gw, failed, (r) => r.stage === 'poll');
    await gw.stopWorkers();
    const polls = gw.services.jobs.queues.get('task-poll')!;
    // Lost: the delayed poll job disappears (as with a Redis restart).
    const delayed = (await polls.getDelayed()) as Job<{ taskId: string }>[];
    for (const job of delayed.filter((j) => j.data.taskId === lost)) await job.remove();
    // Failed for good: the other one's poll job is run now and fails.
    for (const job of delayed.filter((j) => j.data.taskId === failed)) await job.promote();
    await failJobsOf('task-poll', 1);
    expect((await taskRow(gw, lost))?.stage).toBe('poll');
    expect((await taskRow(gw, failed))?.stage).toBe('poll');

    gw.startWorkers();
    try {
      for (const id of [lost, failed]) expect((await waitSettled(gw, id, 15_000)).status).toBe('succeeded');
      const charges = await expectConsistentLedger(gw.services.db, a.userId);
      expect(charges.map((c) => c.request_id).sort()).toEqual([lost, failed].sort());
      // Once done, maintenance leaves the tasks alone (nothing re-runs, nothing is charged again).
      const creates = gw.sim.stats().tasks['content-tasks'].taskCreateRequests;
      await sleep(1_500);
      expect(gw.sim.stats().tasks['content-tasks'].taskCreateRequests).toBe(creates);
      expect(await expectConsistentLedger(gw.services.db, a.userId)).toHaveLength(2);
    } finally {
      await gw.stopWorkers();
    }
  });
});
