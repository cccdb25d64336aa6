// Worker processes killed with SIGKILL at random moments — in the middle of submits (the upstream
// made the task but its answer never arrived) and while tasks are being polled — twenty times in a
// row. Every task still reaches a terminal state, each upstream task is created once (the submit's
// Idempotency-Key is the task id) and each task is charged exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../support/http.js';
import { expectConsistentLedger, usersBalance } from '../support/money.js';
import {
  createVideo,
  spawnWorker,
  startTaskGateway,
  taskRows,
  TERMINAL,
  videoBody,
  VIDEO_PER_SECOND,
  VIDEO_UPSTREAM,
  waitSettled,
  workerEnv,
  writeTaskCatalogFile,
  type TaskGateway,
  type WorkerProcess,
} from '../support/task-gateway.js';

const PRICE = 5 * VIDEO_PER_SECOND['720p']!;
const KILLS = 20;
let gw: TaskGateway;
let catalog: { file: string; remove(): Promise<void> };
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  // The API (and the usage drain) in this process; the task jobs only in the worker processes.
  gw = await startTaskGateway({
    workers: false,
    env: { TASK_RECONCILE_AFTER_MS: '2000', MAINTENANCE_EVERY_MS: '300' },
  });
  catalog = await writeTaskCatalogFile(gw.sim.url);
  // Creates answer after 400 ms (the upstream task exists from the first byte): a kill in that
  // window loses the answer, not the task.
  gw.sim.setModel(VIDEO_UPSTREAM, { latencyMs: 400, taskRunMs: 1_500 });
});
afterAll(async () => {
  await worker?.stop('SIGKILL');
  await gw?.close();
  await catalog?.remove();
});

describe('worker processes killed with SIGKILL, 20 times', () => {
  it('every task ends terminal, is submitted upstream once and charged exactly once', {
    timeout: 150_000,
  }, async () => {
    const funds = 1_000 * PRICE;
    const a = await gw.account({ balance: funds });
    // Short locks and stall checks: a killed worker's jobs are taken up in seconds, not BullMQ's 30 s.
    const env = { ...workerEnv(gw, catalog.file), WORKER_LOCK_MS: '2000', WORKER_STALLED_INTERVAL_MS: '1000' };
    const ids: string[] = [];
    const interruptedSubmits = new Set<string>();
    let midPoll = 0;
    const started = performance.now();

    // Each kill lands at a random moment; the next worker is already starting (operators run
    // several), so the loop is not all process start-up.
    worker = await spawnWorker(env);
    for (let i = 0; i < KILLS; i++) {
      if (i < 12) {
        for (let j = 0; j < 2; j++) {
          const res = await createVideo(gw, a.key, videoBody(`kill loop ${i}.${j}`));
          expect(res.status).toBe(200);
          ids.push(res.json.id as string);
        }
      }
      const next = spawnWorker(env);
      await sleep(100 + Math.random() * 800);
      await worker.stop('SIGKILL');
      // What the kill interrupted: a submit whose upstream task exists but whose answer was never
      // recorded, and tasks being polled.
      const rows = await taskRows(gw, a.userId);
      const upstreamKeys = new Set(gw.sim.tasks().map((t) => t.idempotencyKey));
      for (const r of rows) if (r.stage === 'submit' && upstreamKeys.has(r.id)) interruptedSubmits.add(r.id);
      if (rows.some((r) => r.stage === 'poll')) midPoll++;
      worker = await next;
    }
    const loopMs = performance.now() - started;
    expect(interruptedSubmits.size).toBeGreaterThan(0);
    expect(midPoll).toBeGreaterThan(0);

    // The last worker is left alone.
    const recovering = performance.now();
    for (const id of ids) await waitSettled(gw, id, 120_000);
    console.log(
      `${KILLS} kills in ${Math.round(loopMs)} ms (${interruptedSubmits.size} submits cut off after the upstream made the task; ${midPoll} kills while tasks were polling); all ${ids.length} tasks settled ${Math.round(performance.now() - recovering)} ms later`,
    );

    const rows = await taskRows(gw, a.userId);
    expect(rows).toHaveLength(ids.length);
    for (const row of rows) {
      expect(TERMINAL).toContain(row.status);
      expect(row.status, `${row.id}: ${row.error_code} ${row.error_message}`).toBe('succeeded');
    }
    const stats = gw.sim.stats().tasks['content-tasks'];
    console.log(`upstream: ${stats.taskCreates} tasks created from ${stats.taskCreateRequests} create requests`);
    expect(stats.taskCreates).toBe(ids.length);
    expect(stats.taskCreateRequests).toBeGreaterThanOrEqual(ids.length);
    // One upstream task per gateway task, and the one each row points at.
    const upstream = gw.sim.tasks();
    expect(new Set(upstream.map((t) => t.idempotencyKey))).toEqual(new Set(ids));
    for (const row of rows) expect(upstream.find((t) => t.idempotencyKey === row.id)?.id).toBe(row.upstream_id);

    const charges = await expectConsistentLedger(gw.services.db, a.userId);
    expect(charges.map((c) => c.request_id).sort()).toEqual([...ids].sort());
    expect(charges.every((c) => c.amount_micro_usd === -PRICE)).toBe(true);
    expect(await usersBalance(gw.services.db, a.userId)).toBe(funds - ids.length * PRICE);
  });
});
