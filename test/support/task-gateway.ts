// A gateway for the task tests: the in-process test gateway with real S3 (s3rver), a catalog of
// task models on the simulator's two task protocols, and optionally the task workers in-process.
// Also spawns `node dist/bin/worker.js` for the tests that kill or measure a worker process.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Job } from 'bullmq';
import YAML from 'yaml';
import type { Clock } from '../../shared/clock.js';
import type { JobName } from '../../shared/jobs/catalog.js';
import type { TaskRow } from '../../shared/db/schema.js';
import { startTaskWorkers, type TaskWorkerOptions, type TaskWorkers } from '../../workers/task-workers.js';
import type { UpstreamSimOptions } from '../../tools/upstream-sim/index.js';
import { testCatalog } from './catalog.js';
import { startTestGateway, type TestGateway } from './gateway.js';
import { waitUntil } from './http.js';
import { postJson, type Json, type JsonReply } from './limits.js';
import { drained } from './money.js';
import { freePort, ROOT } from './processes.js';
import { startS3, type TestS3 } from './s3.js';

export const SIM_KEY = 'sim-upstream-secret';

/** content-tasks video model; prices in micro-USD per second of the resolution. */
export const VIDEO_MODEL = 'vid-sim';
export const VIDEO_UPSTREAM = 'vid-up';
export const VIDEO_PER_SECOND: Record<string, number> = { '720p': 10_000, '1080p': 30_000 };
export const VIDEO_PER_SECOND_AUDIO: Record<string, number> = { '720p': 15_000, '1080p': 45_000 };
/** openai-videos video model. */
export const OPENAI_VIDEO_MODEL = 'vid-openai';
export const OPENAI_VIDEO_PER_SECOND = 20_000;
/** content-tasks image model: the simulator makes images when the upstream model starts with `img`. */
export const IMAGE_MODEL = 'img-task-sim';
export const IMAGE_UPSTREAM = 'img-up';
export const IMAGE_PER_IMAGE: Record<string, number> = { '1024x1024': 40_000, '512x512': 10_000 };

/** testCatalog plus the two task providers and a model on each (and an image-task model). */
export function taskCatalog(simUrl: string) {
  const base = testCatalog(simUrl) as { providers: unknown[]; models: unknown[] };
  return {
    ...base,
    providers: [
      ...base.providers,
      { id: 'tasks-sim', protocol: 'content-tasks', base_url: `${simUrl}/api/v3`, api_key: SIM_KEY },
      { id: 'videos-sim', protocol: 'openai-videos', base_url: `${simUrl}/v1`, api_key: SIM_KEY },
    ],
    models: [
      ...base.models,
      {
        id: VIDEO_MODEL,
        endpoints: ['videos'],
        routes: [{ provider: 'tasks-sim', upstream_model: VIDEO_UPSTREAM }],
        durations: [5, 10],
        resolutions: ['720p', '1080p'],
        pricing: { per_second: VIDEO_PER_SECOND, per_second_with_audio: VIDEO_PER_SECOND_AUDIO },
      },
      {
        id: OPENAI_VIDEO_MODEL,
        endpoints: ['videos'],
        routes: [{ provider: 'videos-sim', upstream_model: 'sora-2' }],
        durations: [4, 8],
        resolutions: ['720p'],
        pricing: { per_second: OPENAI_VIDEO_PER_SECOND },
      },
      {
        id: IMAGE_MODEL,
        endpoints: ['images/tasks'],
        routes: [{ provider: 'tasks-sim', upstream_model: IMAGE_UPSTREAM }],
        pricing: { per_image: IMAGE_PER_IMAGE },
      },
    ],
  };
}

/**
 * Small intervals so recovery paths run within a test's time, and a first poll 0.2 s after the
 * submit (2 s in production): the simulator's tasks finish in 0.2 s, and each test waits on a
 * handful of them.
 */
export const TASK_ENV: Record<string, string> = {
  MAINTENANCE_EVERY_MS: '300',
  TASK_RECONCILE_AFTER_MS: '2000',
  TASK_FIRST_POLL_MS: '200',
  SHUTDOWN_GRACE_MS: '1000',
};

export interface TaskGateway extends TestGateway {
  s3: TestS3;
  /** Set when the task workers run in this process. */
  workers: TaskWorkers | undefined;
  /** Starts (or restarts) the in-process task workers. */
  startWorkers(): void;
  stopWorkers(): Promise<void>;
}

export interface TaskGatewayOptions {
  env?: Record<string, string>;
  sim?: UpstreamSimOptions;
  clock?: Clock;
  /** Run the task workers in this process (default true). */
  workers?: boolean;
  /** A running S3 server to share; otherwise one is started (and stopped on close). */
  s3?: TestS3;
  /** The catalog document (default taskCatalog). */
  catalog?: (simUrl: string) => unknown;
}

export async function startTaskGateway(options: TaskGatewayOptions = {}): Promise<TaskGateway> {
  const s3 = options.s3 ?? (await startS3());
  const env = {
    ...s3.env,
    STORAGE_LINK_SECRET: randomBytes(32).toString('base64url'),
    ...TASK_ENV,
    ...options.env,
  };
  const gw = await startTestGateway({
    env,
    sim: { apiKey: SIM_KEY, ...options.sim },
    catalog: options.catalog ?? taskCatalog,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  let workers: TaskWorkers | undefined;
  const workerOptions = (): TaskWorkerOptions => ({
    queues: 'task-submit,task-poll,task-mirror,task-settle,dataset-export,private-chat,batch,maintenance',
    concurrency: '',
    maintenanceEveryMs: gw.services.config.tasks.maintenanceEveryMs,
    staleAfterMs: gw.services.config.tasks.reconcileAfterMs,
    graceMs: gw.services.config.shutdownGraceMs,
  });
  const tgw: TaskGateway = {
    ...gw,
    s3,
    get workers() {
      return workers;
    },
    startWorkers() {
      workers ??= startTaskWorkers(gw.services, workerOptions());
    },
    async stopWorkers() {
      const w = workers;
      workers = undefined;
      await w?.close();
    },
    async close() {
      await tgw.stopWorkers();
      await gw.close();
      if (!options.s3) await s3.close();
    },
  };
  if (options.workers ?? true) tgw.startWorkers();
  return tgw;
}

// ---- requests -------------------------------------------------------------------------------

export function videoBody(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: VIDEO_MODEL, content: [{ type: 'text', text }], ...extra };
}

export function createVideo(
  gw: TestGateway,
  key: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JsonReply> {
  return postJson(gw, '/v1/videos', key, body, headers);
}

export async function getJson(url: string, key?: string): Promise<JsonReply> {
  const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const text = await res.text();
  let json: Json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}

export type TaskKindPath = 'videos' | 'images/tasks';

export function readTask(gw: TestGateway, key: string, id: string, kind: TaskKindPath = 'videos'): Promise<JsonReply> {
  return getJson(`${gw.url}/v1/${kind}/${id}`, key);
}

export const TERMINAL = ['succeeded', 'failed', 'cancelled', 'expired'];

/** The task row, straight from Postgres. */
export function taskRow(gw: TestGateway, id: string): Promise<TaskRow | undefined> {
  return gw.services.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Waits until the task is settled (stage `done`: terminal and its money charged or released), and
 * its usage record is drained into Postgres. Returns the row.
 */
export async function waitSettled(gw: TestGateway, id: string, timeoutMs = 20_000): Promise<TaskRow> {
  let row: TaskRow | undefined;
  try {
    await waitUntil(async () => (row = await taskRow(gw, id))?.stage === 'done', timeoutMs, 50);
  } catch {
    throw new Error(
      `task ${id} not settled within ${timeoutMs} ms: ${JSON.stringify(row && { status: row.status, stage: row.stage, upstream_id: row.upstream_id, polls: row.polls, error: row.error_code })}`,
    );
  }
  await drained(gw, 5_000);
  return row!;
}

/** Waits until the task's row satisfies `check`. */
export async function waitRow(
  gw: TestGateway,
  id: string,
  check: (row: TaskRow) => boolean,
  timeoutMs = 20_000,
): Promise<TaskRow> {
  let row: TaskRow | undefined;
  await waitUntil(
    async () => {
      row = await taskRow(gw, id);
      return row !== undefined && check(row);
    },
    timeoutMs,
    25,
  );
  return row!;
}

export function chargeRows(gw: TestGateway, userId: string) {
  return gw.services.db
    .selectFrom('ledger_entries')
    .selectAll()
    .where('user_id', '=', userId)
    .where('kind', '=', 'charge')
    .orderBy('id')
    .execute();
}

export function taskRows(gw: TestGateway, userId: string) {
  return gw.services.db.selectFrom('tasks').selectAll().where('user_id', '=', userId).orderBy('created_at').execute();
}

/** Jobs of every task queue in every state (what "nothing queued" is checked against). */
export async function jobCount(gw: TestGateway): Promise<number> {
  let total = 0;
  for (const queue of gw.services.jobs.queues.values()) {
    const counts = await queue.getJobCounts('waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized');
    total += Object.values(counts).reduce((a, b) => a + b, 0);
  }
  return total;
}

/**
 * Runs the delayed jobs of `queue` for this task now: a retry's backoff passes instantly, so a
 * test sees attempts run out without waiting the minutes the backoff would take.
 */
export async function promoteDelayed(gw: TestGateway, queue: JobName, taskId: string): Promise<number> {
  const jobs = (await gw.services.jobs.queues.get(queue)!.getDelayed()) as Job<{ taskId: string }>[];
  let n = 0;
  for (const job of jobs) {
    if (job.data.taskId !== taskId) continue;
    await job.promote().then(
      () => n++,
      () => {},
    );
  }
  return n;
}

/** Waits until the task is done while its mirroring fails every time: the retries run without their backoff. */
export async function doneAfterMirrorRetries(gw: TestGateway, taskId: string, timeoutMs = 25_000): Promise<TaskRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await taskRow(gw, taskId);
    if (row?.stage === 'done') return row;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${row?.stage}`);
    if (row?.stage === 'mirror') await promoteDelayed(gw, 'task-mirror', taskId);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A Redis reservation of this call id still held by the account (money set aside). */
export async function reservationHeld(gw: TestGateway, userId: string, callId: string): Promise<boolean> {
  return (await gw.services.redis.hexists(gw.services.redisKeys.reservations(userId), callId)) === 1;
}

// ---- worker processes -----------------------------------------------------------------------

/** The task catalog as a YAML file, for worker processes; `remove` deletes it. */
export async function writeTaskCatalogFile(simUrl: string): Promise<{ file: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gw-task-catalog-'));
  const file = path.join(dir, 'catalog.yaml');
  await writeFile(file, YAML.stringify(taskCatalog(simUrl)));
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** What a worker process needs to work for this test gateway (same DB, Redis prefix, S3, link secret). */
export function workerEnv(gw: TestGateway, catalogFile: string): Record<string, string> {
  const keep = [
    'DATABASE_URL',
    'REDIS_PREFIX',
    'REDIS_URL',
    'STORAGE_LINK_SECRET',
    'TASK_DEADLINE_MS',
    'MAINTENANCE_EVERY_MS',
    'TASK_RECONCILE_AFTER_MS',
    'TASK_FIRST_POLL_MS',
    'SHUTDOWN_GRACE_MS',
  ];
  const env: Record<string, string> = { CATALOG_FILE: catalogFile, DATABASE_POOL_SIZE: '4' };
  for (const [k, v] of Object.entries(gw.env))
    if (keep.includes(k) || k.startsWith('S3_') || k === 'STORAGE_DRIVER') env[k] = v;
  return env;
}

export interface WorkerProcess {
  pid: number;
  child: ChildProcess;
  stderr(): string;
  /** Sends the signal (default SIGKILL) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  exited: Promise<void>;
}

/**
 * `node dist/bin/worker.js` with only the given environment; resolves once its /healthz answers
 * (the BullMQ workers are then running). The usage drain stays in the test process unless asked.
 */
export async function spawnWorker(
  env: Record<string, string>,
  queues = 'task-submit,task-poll,task-mirror,task-settle,maintenance',
): Promise<WorkerProcess> {
  const port = await freePort();
  const inherited = Object.fromEntries(
    ['PATH', 'HOME', 'REDIS_URL'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])),
  );
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/bin/worker.js')], {
    cwd: ROOT,
    env: {
      ...inherited,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      HOST: '127.0.0.1',
      WORKER_METRICS_PORT: String(port),
      WORKER_QUEUES: queues,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (process.env.TEST_LOG_LEVEL) process.stderr.write(d);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A generous bound: it waits on the process saying it listens, and two busy cores can take this long.
  const deadline = Date.now() + 45_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`worker.js exited with ${child.exitCode}: ${stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`worker.js did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    pid: child.pid!,
    child,
    stderr: () => stderr,
    exited,
    async stop(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** Resident set size of a process, bytes (Linux /proc). */
export async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}
