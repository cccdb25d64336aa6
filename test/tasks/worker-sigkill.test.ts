// Worker processes killed with SIGKILL at every step of a task, 20 kills during 20 video tasks:
// mid-submit (the upstream made the task but its answer never arrived), while tasks are polled,
// mid-mirror (a result download held open) and mid-settle (the charge made, the usage drain held
// so the run waits for its ledger entry). Every task still ends succeeded, each upstream task is
// created once (the submit's Idempotency-Key is the task id), each task is charged exactly once,
// and no task reads `succeeded` before its charge is in the ledger: the status and the ledger are
// read in one statement (one snapshot), so a charge that lands even a millisecond after the status
// fails the test.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskStatus } from '../../shared/db/schema.js';
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
const TASKS = 20;
/** Which kills hold result downloads (mid-mirror) and the usage drain (mid-settle) first. */
const HOLD: Record<number, 'mirror' | 'settle'> = {
  3: 'mirror',
  5: 'settle',
  7: 'mirror',
  9: 'settle',
  11: 'settle',
  12: 'mirror',
  14: 'settle',
  17: 'settle',
};
/** Workers starting while others run (operators run several): a kill is not followed by a cold start. */
const SPARES = 2;

/** The workers reach the simulator through here; result downloads wait while held. */
let downloads: Server;
let heldDownloads: (() => void)[] | undefined;
let gw: TaskGateway;
let catalog: { file: string; remove(): Promise<void> };
/** The worker processes up now, and those still starting. */
const alive: WorkerProcess[] = [];
const starting = new Set<Promise<void>>();

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
  await Promise.all([...starting]);
  for (const w of alive) await w.stop('SIGKILL');
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

/** Starts that failed and were tried again (a start-up probe can time out on two busy cores). */
const failedStarts: string[] = [];

/** Starts a worker in the background; it joins `alive` once up. A start that fails is tried once more. */
function startWorker(env: Record<string, string>): Promise<void> {
  const started = spawnWorker(env)
    .catch((err: Error) => {
      failedStarts.push(err.message.slice(-300));
      return spawnWorker(env);
    })
    .then((w) => void alive.push(w))
    .finally(() => starting.delete(started));
  starting.add(started);
  return started;
}

type Held = Record<'task-submit' | 'task-mirror' | 'task-settle', string[]>;

/** The tasks whose submit, mirror and settle jobs each worker process runs now (BullMQ's processedBy: its WORKER_NAME). */
async function jobsByWorker(): Promise<Map<string, Held>> {
  const held = new Map<string, Held>();
  for (const queue of ['task-submit', 'task-mirror', 'task-settle'] as const) {
    const q = gw.services.jobs.queues.get(queue)!;
    for (const job of await q.getActive()) {
      const by = (await gw.services.redis.hget(q.toKey(job.id!), 'pb')) ?? '';
      if (!held.has(by)) held.set(by, { 'task-submit': [], 'task-mirror': [], 'task-settle': [] });
      held.get(by)![queue].push(job.data.taskId as string);
    }
  }
  return held;
}

/**
 * Every 50 ms, the account's tasks that read terminal with their charge, in one statement: the
 * status a client would read and the ledger as it stood at that same instant. The first reading of
 * each task is kept.
 */
function watchTerminal(userId: string) {
  const seen = new Map<string, { status: string; ledger: number }>();
  let running = true;
  const done = (async () => {
    // One more look after `stop`: every task ends before it is called.
    for (let last = false; !last; ) {
      last = !running;
      const rows = await gw.services.db
        .selectFrom('tasks as t')
        .leftJoin('ledger_entries as l', (j) => j.onRef('l.request_id', '=', 't.id').on('l.kind', '=', 'charge'))
        .select(['t.id', 't.status', 'l.amount_micro_usd'])
        .where('t.user_id', '=', userId)
        .where('t.status', 'in', TERMINAL as TaskStatus[])
        .execute();
      for (const r of rows) if (!seen.has(r.id)) seen.set(r.id, { status: r.status, ledger: r.amount_micro_usd ?? 0 });
      if (!last) await sleep(50);
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
    // up within about 3 s, so twenty kills fit in the test's time.
    const env = { ...workerEnv(gw, catalog.file), WORKER_LOCK_MS: '2000', WORKER_STALLED_INTERVAL_MS: '1000' };
    const ids: string[] = [];
    const interrupted = { submit: new Set<string>(), poll: 0, mirror: 0, settle: 0 };
    const watcher = watchTerminal(a.userId);
    const started = performance.now();

    // Each kill lands at a random moment, or while downloads or the drain are held, on the worker
    // that runs the most of the jobs a kill can interrupt (the held ones first).
    await startWorker(env);
    for (let i = 0; i < SPARES; i++) void startWorker(env);
    for (let i = 0; i < KILLS; i++) {
      // Two tasks a kill for the first half: the second half's kills find them polled, mirrored, settled.
      for (let j = 0; j < 2 && ids.length < TASKS; j++) {
        const res = await createVideo(gw, a.key, videoBody(`kill loop ${i}.${j}`));
        expect(res.status).toBe(200);
        ids.push(res.json.id as string);
      }
      const hold = HOLD[i];
      if (hold === 'mirror') heldDownloads ??= [];
      if (hold === 'settle') await holdDrain(8_000);
      // A held kill waits (up to 4 s) for a download or a settle to be held; the others land at random.
      let held = await jobsByWorker();
      if (hold) {
        for (const until = Date.now() + 4_000; Date.now() < until; held = await jobsByWorker()) {
          if ([...held.values()].some((jobs) => jobs[`task-${hold}`].length > 0)) break;
          await sleep(50);
        }
      } else await sleep(100 + Math.random() * 700);
      while (alive.length === 0) await Promise.race(starting);
      // What the kill interrupts: a submit whose upstream task exists but whose answer was never
      // recorded, tasks being polled, downloads and settles in progress.
      if (!hold) held = await jobsByWorker();
      const none: Held = { 'task-submit': [], 'task-mirror': [], 'task-settle': [] };
      const jobsOf = (w: WorkerProcess) => held.get(`${hostname()}:${w.pid}`) ?? none;
      // While downloads or the drain are held, the worker holding the most of those jobs first.
      const count = (w: WorkerProcess) =>
        (hold ? 1_000 * jobsOf(w)[`task-${hold}`].length : 0) + Object.values(jobsOf(w)).flat().length;
      const victim = alive.reduce((most, w) => (count(w) > count(most) ? w : most));
      const upstreamKeys = new Set(gw.sim.tasks().map((t) => t.idempotencyKey));
      for (const id of jobsOf(victim)['task-submit']) if (upstreamKeys.has(id)) interrupted.submit.add(id);
      if ((await taskRows(gw, a.userId)).some((r) => r.stage === 'poll')) interrupted.poll++;
      interrupted.mirror += jobsOf(victim)['task-mirror'].length;
      interrupted.settle += jobsOf(victim)['task-settle'].length;
      alive.splice(alive.indexOf(victim), 1);
      await victim.stop('SIGKILL');
      releaseDownloads();
      await releaseDrain();
      if (i < KILLS - 1) void startWorker(env);
    }
    const loopMs = performance.now() - started;

    // The workers left are left alone.
    const recovering = performance.now();
    for (const id of ids) await waitSettled(gw, id, 30_000);
    const recoveredMs = performance.now() - recovering;
    await watcher.stop();
    // The last kill's jobs, settles among them, are taken up once their 2 s locks lapse.
    expect(recoveredMs).toBeLessThan(15_000);
    console.log(
      `${KILLS} kills in ${Math.round(loopMs)} ms, interrupting ${interrupted.submit.size} submits after the upstream made the task, polls ${interrupted.poll} times, ${interrupted.mirror} mirrors and ${interrupted.settle} settles; all ${ids.length} tasks settled ${Math.round(recoveredMs)} ms later`,
    );
    if (failedStarts.length > 0) console.log(`worker starts tried again: ${failedStarts.join(' | ')}`);
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
