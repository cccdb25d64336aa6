// Worker processes killed with SIGKILL at every step of a task: mid-submit (the upstream made the
// task but its answer never arrived), while tasks are polled, mid-mirror (a result download held
// open) and mid-settle (the charge made, the usage drain held so the run waits for its ledger
// entry). Every task still ends succeeded, each upstream task is created once (the submit's
// Idempotency-Key is the task id), each task is charged exactly once, and no task reads
// `succeeded` before its charge is in the ledger: a client polling the list sees the charge at the
// moment it sees the status.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../support/http.js';
import { expectConsistentLedger, usersBalance } from '../support/money.js';
import {
  createVideo,
  getJson,
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
const KILLS = 12;
/** Which kills hold result downloads (mid-mirror) and the usage drain (mid-settle) first. */
const HOLD: Record<number, 'mirror' | 'settle'> = { 3: 'mirror', 4: 'settle', 7: 'mirror', 8: 'settle', 10: 'settle' };

/** The workers reach the simulator through here; result downloads wait while held. */
let downloads: Server;
let heldDownloads: (() => void)[] | undefined;
let gw: TaskGateway;
let catalog: { file: string; remove(): Promise<void> };
let worker: WorkerProcess | undefined;

function relay(req: IncomingMessage, res: ServerResponse): void {
  const go = () => {
    const upstream = request(`${gw.sim.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('error', () => upstream.destroy());
    req.pipe(upstream);
  };
  if (heldDownloads && req.url?.startsWith('/_sim/files/')) heldDownloads.push(go);
  else go();
}

beforeAll(async () => {
  downloads = createServer(relay).listen(0, '127.0.0.1');
  await new Promise((r) => downloads.once('listening', r));
  // The API (and the usage drain) in this process; the task jobs only in the worker processes.
  gw = await startTaskGateway({
    workers: false,
    env: { TASK_RECONCILE_AFTER_MS: '2000', MAINTENANCE_EVERY_MS: '300' },
  });
  // The simulator names result files on the origin it was reached at: the provider's own, here.
  catalog = await writeTaskCatalogFile(`http://127.0.0.1:${(downloads.address() as AddressInfo).port}`);
  // Creates answer after 400 ms (the upstream task exists from the first byte): a kill in that
  // window loses the answer, not the task.
  gw.sim.setModel(VIDEO_UPSTREAM, { latencyMs: 400, taskRunMs: 1_000 });
});
afterAll(async () => {
  releaseDownloads();
  await worker?.stop('SIGKILL');
  await gw?.close();
  await catalog?.remove();
  downloads?.close();
});

function releaseDownloads(): void {
  const held = heldDownloads ?? [];
  heldDownloads = undefined;
  for (const go of held) go();
}

/** The usage drain stops while another holder has its lock (shared/usage/lua/claim-usage.lua). */
function holdDrain(ms: number): Promise<unknown> {
  return gw.services.redis.set(gw.services.redisKeys.usageLock, 'held-by-the-test', 'PX', ms);
}
function releaseDrain(): Promise<unknown> {
  return gw.services.redis.del(gw.services.redisKeys.usageLock);
}

async function activeJobs(queue: 'task-mirror' | 'task-settle'): Promise<number> {
  return (await gw.services.jobs.queues.get(queue)!.getActive()).length;
}

/**
 * What a client sees: the account's tasks listed every 100 ms; when one first reads terminal, the
 * ledger is read at once for its charge.
 */
function watchTerminal(key: string, userId: string) {
  const seen = new Map<string, { status: string; ledger: number }>();
  let running = true;
  const done = (async () => {
    // One more look after `stop`: every task ends before it is called.
    for (let last = false; !last; ) {
      last = !running;
      const list = await getJson(`${gw.url}/v1/videos?limit=100`, key);
      const fresh = (list.json.data as { id: string; status: string }[]).filter(
        (t) => TERMINAL.includes(t.status) && !seen.has(t.id),
      );
      if (fresh.length > 0) {
        const charges = await gw.services.db
          .selectFrom('ledger_entries')
          .select(['request_id', 'amount_micro_usd'])
          .where('user_id', '=', userId)
          .where('kind', '=', 'charge')
          .execute();
        for (const t of fresh) {
          const ledger = charges.find((c) => c.request_id === t.id)?.amount_micro_usd ?? 0;
          seen.set(t.id, { status: t.status, ledger });
        }
      }
      if (!last) await sleep(100);
    }
  })();
  return {
    seen,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

describe('worker processes killed with SIGKILL at every step of a task', () => {
  it('every task ends succeeded, submitted upstream once, charged exactly once, and never reads succeeded before its charge', {
    timeout: 120_000,
  }, async () => {
    const funds = 1_000 * PRICE;
    const a = await gw.account({ balance: funds });
    // Short locks and stall checks (the defaults are 5 s and 2 s): a killed worker's jobs are taken
    // up within about 3 s, so twelve kills fit in the test's time.
    const env = { ...workerEnv(gw, catalog.file), WORKER_LOCK_MS: '2000', WORKER_STALLED_INTERVAL_MS: '1000' };
    const ids: string[] = [];
    const interrupted = { submit: new Set<string>(), poll: 0, mirror: 0, settle: 0 };
    const watcher = watchTerminal(a.key, a.userId);
    const started = performance.now();

    // Each kill lands at a random moment, or while downloads or the drain are held; the next
    // worker is already starting (operators run several), so the loop is not all process start-up.
    worker = await spawnWorker(env);
    for (let i = 0; i < KILLS; i++) {
      if (i < 8) {
        for (let j = 0; j < 2; j++) {
          const res = await createVideo(gw, a.key, videoBody(`kill loop ${i}.${j}`));
          expect(res.status).toBe(200);
          ids.push(res.json.id as string);
        }
      }
      const hold = HOLD[i];
      if (hold === 'mirror') heldDownloads ??= [];
      if (hold === 'settle') await holdDrain(5_000);
      const next = spawnWorker(env);
      await sleep(hold ? 800 : 100 + Math.random() * 700);
      // What the kill interrupts: a submit whose upstream task exists but whose answer was never
      // recorded, tasks being polled, downloads and settles in progress.
      const rows = await taskRows(gw, a.userId);
      const upstreamKeys = new Set(gw.sim.tasks().map((t) => t.idempotencyKey));
      for (const r of rows) if (r.stage === 'submit' && upstreamKeys.has(r.id)) interrupted.submit.add(r.id);
      if (rows.some((r) => r.stage === 'poll')) interrupted.poll++;
      interrupted.mirror += await activeJobs('task-mirror');
      interrupted.settle += await activeJobs('task-settle');
      await worker.stop('SIGKILL');
      releaseDownloads();
      await releaseDrain();
      worker = await next;
    }
    const loopMs = performance.now() - started;

    // The last worker is left alone.
    const recovering = performance.now();
    for (const id of ids) await waitSettled(gw, id, 30_000);
    const recoveredMs = performance.now() - recovering;
    await watcher.stop();
    // The last kill's jobs, settles among them, are taken up once their 2 s locks lapse.
    expect(recoveredMs).toBeLessThan(15_000);
    console.log(
      `${KILLS} kills in ${Math.round(loopMs)} ms, interrupting ${interrupted.submit.size} submits after the upstream made the task, polls ${interrupted.poll} times, ${interrupted.mirror} mirrors and ${interrupted.settle} settles; all ${ids.length} tasks settled ${Math.round(recoveredMs)} ms later`,
    );
    expect(interrupted.submit.size).toBeGreaterThan(0);
    expect(interrupted.poll).toBeGreaterThan(0);
    expect(interrupted.mirror).toBeGreaterThan(0);
    expect(interrupted.settle).toBeGreaterThan(0);

    const rows = await taskRows(gw, a.userId);
    expect(rows).toHaveLength(ids.length);
    for (const row of rows) expect(row.status, `${row.id}: ${row.error_code} ${row.error_message}`).toBe('succeeded');
    // Every task, when the client first read it terminal, was charged at that moment already.
    for (const id of ids) expect(watcher.seen.get(id), id).toEqual({ status: 'succeeded', ledger: -PRICE });

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
