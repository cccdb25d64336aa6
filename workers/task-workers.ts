import { hostname } from 'node:os';
import { Worker, type Job, type Processor } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOB_NAMES, type JobData, type JobName } from '../shared/jobs/catalog.js';
import { bullPrefix } from '../shared/jobs/queues.js';
import { createPatientRedis, reportRedisErrors } from '../shared/redis/client.js';
import { jobOutcomes } from './metrics.js';
import { jobEnded, jobStarted, workerSlots } from '../shared/telemetry/metrics.js';
import { runJobSpan } from '../shared/telemetry/spans.js';
import { takeTraceCarrier } from '../shared/jobs/queues.js';
import { maintenance } from './tasks/maintenance.js';
import { watchRedisLoss } from './tasks/redis-loss.js';
import type { TaskJobServices } from './tasks/task-steps.js';

type TaskJobName = Exclude<JobName, 'maintenance'>;

/**
 * The name BullMQ writes on each job this process takes (its `processedBy`): which process ran, or
 * was running, a job — for an operator reading a stuck job, and for the tests that kill workers.
 */
export const WORKER_NAME = `${hostname()}:${process.pid}`;

type Run<N extends TaskJobName> = (s: TaskJobServices, job: Job<JobData<N>>) => Promise<string>;

/**
 * Each queue's processor, loaded only by a process that serves the queue: a worker of the task
 * queues alone never loads the text-generation engine that private chat calls and batches run on,
 * nor the mailer — a second of a worker's start on two busy cores, the time a killed worker's jobs
 * wait for the next one.
 */
const PROCESSORS: { [N in TaskJobName]: () => Promise<Run<N>> } = {
  'task-submit': async () => (await import('./tasks/submit-task.js')).submitTask,
  'task-poll': async () => (await import('./tasks/poll-task.js')).pollTask,
  'task-mirror': async () => (await import('./tasks/mirror-task.js')).mirrorTask,
  'task-settle': async () => (await import('./tasks/settle-task.js')).settleTask,
  'dataset-export': async () => (await import('./datasets/export-dataset.js')).exportDataset,
  'private-chat': async () => {
    const { runPrivateChat } = await import('./private/run-chat.js');
    return (s, job) => runPrivateChat(s, job.data);
  },
  mail: async () => (await import('./mail.js')).sendMail,
  webhook: async () => (await import('./webhooks/deliver-webhook.js')).deliverWebhook,
  batch: async () => (await import('./batches/run-batch.js')).runBatch,
};

// Polls are quick HTTP calls and mostly waiting; mirrors move big files.
const DEFAULT_CONCURRENCY: Record<TaskJobName, number> = {
  'task-submit': 20,
  'task-poll': 50,
  'task-mirror': 4,
  'task-settle': 20,
  'dataset-export': 2,
  'private-chat': 50,
  mail: 5,
  // Each attempt mostly waits on a receiver (up to 15 s).
  webhook: 50,
  // Each batch job runs BATCH_CONCURRENCY lines of its own at once.
  batch: 4,
};

/** Stalls (its worker died, or lost the lock) a job survives; past that it fails, and the reconciler re-drives its task. */
const MAX_STALLED_COUNT = 5;

export interface TaskWorkerOptions {
  /** Which queues this process serves (WORKER_QUEUES: `all` or a comma list). */
  queues: string;
  /** `task-poll=100,task-mirror=2` (WORKER_CONCURRENCY). */
  concurrency: string;
  maintenanceEveryMs: number;
  staleAfterMs: number;
  graceMs: number;
}

export interface TaskWorkers {
  close(): Promise<void>;
}

export function selectedQueues(spec: string): Set<string> {
  const all = [...JOB_NAMES.filter((n) => n !== 'maintenance'), 'usage', 'maintenance'];
  if (spec.trim() === '' || spec.trim() === 'all') return new Set(all);
  const wanted = spec
    .split(',')
    .map((q) => q.trim())
    .filter(Boolean);
  for (const q of wanted)
    if (!all.includes(q)) throw new Error(`WORKER_QUEUES: unknown queue '${q}' (known: ${all.join(', ')})`);
  return new Set(wanted);
}

function concurrencyOf(spec: string, name: TaskJobName): number {
  for (const part of spec.split(',')) {
    const [queue, n] = part.split('=').map((x) => x.trim());
    if (queue === name && Number.isInteger(Number(n)) && Number(n) > 0) return Number(n);
  }
  return DEFAULT_CONCURRENCY[name];
}

/** BullMQ workers for the selected task queues, plus the maintenance loop. */
export function startTaskWorkers(s: TaskJobServices, options: TaskWorkerOptions): TaskWorkers {
  const selected = selectedQueues(options.queues);
  // Workers block on Redis: their connection waits for it instead of failing fast.
  const connection: Redis = createPatientRedis(s.config.redis, { lazyConnect: false });
  reportRedisErrors(connection, s.log, 'workers');
  const workers: Worker[] = [];
  for (const name of Object.keys(PROCESSORS) as TaskJobName[]) {
    if (!selected.has(name)) continue;
    // Loading from now on; a job that comes first waits for it (a failed load fails the attempt).
    const loading = (PROCESSORS[name] as () => Promise<(s: TaskJobServices, job: Job) => Promise<string>>)();
    loading.catch(() => {});
    // Each attempt counted while it runs (concurrency in use) and traced, linked to the request that created its job.
    const processor: Processor<unknown, string> = async (job) => {
      const run = await loading;
      const carrier = takeTraceCarrier(job);
      jobStarted(name);
      try {
        return await runJobSpan(name, carrier, () => run(s, job));
      } finally {
        jobEnded(name);
      }
    };
    const concurrency = concurrencyOf(options.concurrency, name);
    workerSlots(name, concurrency);
    const worker = new Worker(name, processor, {
      name: WORKER_NAME,
      connection,
      prefix: bullPrefix(s.config.redis.prefix),
      concurrency,
      // A job whose worker died is taken up again once its lock lapses and a stall check sees it.
      lockDuration: s.config.worker.lockMs,
      stalledInterval: s.config.worker.stalledIntervalMs,
      // Every processor is idempotent, so a job whose workers died under it is run again, not
      // failed at its second stall (BullMQ's default), which would wait for the reconciler.
      maxStalledCount: MAX_STALLED_COUNT,
    });
    worker.on('completed', () => jobOutcomes.inc({ queue: name, outcome: 'completed' }));
    worker.on('failed', (job, err) => {
      jobOutcomes.inc({ queue: name, outcome: 'failed' });
      // The job's id, not its data: a mail job's data is the mail (a sign-in code among them).
      s.log.warn({ queue: name, jobId: job?.id, err: err.message }, 'job attempt failed');
    });
    worker.on('error', (err) => s.log.warn({ queue: name, err: err.message }, 'worker error'));
    workers.push(worker);
  }
  const timer = selected.has('maintenance') ? startMaintenance(s, options) : undefined;
  const stopLossWatch = workers.length > 0 || timer ? watchRedisLoss(s) : undefined;
  return {
    async close() {
      clearInterval(timer);
      stopLossWatch?.();
      // Stop taking jobs and finish the running ones; past the grace period, hand them back
      // (they become stalled and another worker picks them up).
      const graceful = Promise.all(workers.map((w) => w.close()));
      const timedOut = await Promise.race([
        graceful.then(() => false),
        new Promise<boolean>((r) => setTimeout(() => r(true), options.graceMs).unref()),
      ]);
      if (timedOut) await Promise.all(workers.map((w) => w.close(true)));
      if (selected.has('mail')) (await import('./mail.js')).closeMailer(s);
      connection.disconnect();
    },
  };
}

/** One maintenance run per interval across all workers (a Redis lock), on a plain timer that survives Redis restarts. */
function startMaintenance(s: TaskJobServices, options: TaskWorkerOptions): NodeJS.Timeout {
  const lock = `${s.config.redis.prefix}maintenance:lock`;
  return setInterval(async () => {
    try {
      if ((await s.redis.set(lock, String(process.pid), 'PX', options.maintenanceEveryMs, 'NX')) !== 'OK') return;
      const outcome = await maintenance(s, options.staleAfterMs);
      s.log.debug({ outcome: outcome.summary }, 'maintenance');
    } catch (err) {
      s.log.warn({ err: (err as Error).message }, 'maintenance failed');
    }
  }, options.maintenanceEveryMs).unref();
}
