import { createServer, type Server } from 'node:http';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Queue } from 'bullmq';
import { listenOnFreePort } from '../lifecycle/http-server.js';
import type { Logger } from '../log.js';

/**
 * The process's Prometheus registry: one per process whatever runs in it (API, workers or both),
 * served on a port of its own (METRICS_PORT for the API, WORKER_METRICS_PORT for a worker), never
 * on the public API port — the same exposure rule as the worker's (docs/reference/operations.md).
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** HTTP requests this process is answering now (counted by the API's request listener). */
let inFlight = 0;
export const requestStarted = (): void => {
  inFlight++;
};
export const requestEnded = (): void => {
  inFlight--;
};
new Gauge({
  name: 'gateway_http_requests_in_flight',
  help: 'HTTP requests this API process is answering now',
  registers: [metricsRegistry],
  collect() {
    this.set(inFlight);
  },
});

/** Jobs this process runs now, per queue, and how many it may run at once (its concurrency). */
const jobsRunning = new Map<string, number>();
const jobSlots = new Map<string, number>();
export function workerSlots(queue: string, concurrency: number): void {
  jobSlots.set(queue, concurrency);
  jobsRunning.set(queue, jobsRunning.get(queue) ?? 0);
}
export const jobStarted = (queue: string): void => {
  jobsRunning.set(queue, (jobsRunning.get(queue) ?? 0) + 1);
};
export const jobEnded = (queue: string): void => {
  jobsRunning.set(queue, (jobsRunning.get(queue) ?? 1) - 1);
};
new Gauge({
  name: 'gateway_worker_jobs_active',
  help: 'Jobs this worker process runs now, per queue (its concurrency in use)',
  labelNames: ['queue'] as const,
  registers: [metricsRegistry],
  collect() {
    for (const [queue, n] of jobsRunning) this.set({ queue }, n);
  },
});
new Gauge({
  name: 'gateway_worker_concurrency',
  help: 'Jobs this worker process may run at once, per queue (WORKER_CONCURRENCY)',
  labelNames: ['queue'] as const,
  registers: [metricsRegistry],
  collect() {
    for (const [queue, n] of jobSlots) this.set({ queue }, n);
  },
});

/** The queues to report (shared/jobs' JobQueues), named by what is read of them. */
export interface QueueSource {
  readonly queues: ReadonlyMap<string, Queue>;
}

let queuesTracked = false;

/**
 * Per queue, read from Redis when scraped: jobs by state (waiting, active, delayed, failed,
 * prioritized) and the age of the oldest waiting job, the signal to scale workers on (a queue
 * whose workers keep up has none older than a moment). Once per process.
 */
export function trackQueues(jobs: QueueSource, now: () => number = Date.now): void {
  if (queuesTracked) return;
  queuesTracked = true;
  new Gauge({
    name: 'gateway_queue_jobs',
    help: 'Jobs per queue and state',
    labelNames: ['queue', 'state'] as const,
    registers: [metricsRegistry],
    async collect() {
      for (const [name, queue] of jobs.queues) {
        const counts = await queue.getJobCounts('waiting', 'delayed', 'active', 'failed', 'prioritized');
        for (const [state, n] of Object.entries(counts)) this.set({ queue: name, state }, n);
      }
    },
  });
  new Gauge({
    name: 'gateway_queue_oldest_waiting_seconds',
    help: 'Age of the oldest job waiting for a worker, per queue (0 when none waits): scale workers on it',
    labelNames: ['queue'] as const,
    registers: [metricsRegistry],
    async collect() {
      for (const [name, queue] of jobs.queues) {
        // The wait list is filled at its head: the oldest job is its tail (asc = oldest first).
        const [oldest] = await queue.getJobs(['wait'], 0, 0, true);
        // A delayed job (a retry's backoff, a poll's wait) waits from when it became due.
        const since = oldest ? oldest.timestamp + (oldest.delay ?? 0) : undefined;
        this.set({ queue: name }, since === undefined ? 0 : Math.max(0, (now() - since) / 1000));
      }
    },
  });
}

/** `/healthz` and `/metrics` on a port of their own (an API's METRICS_PORT, a worker's WORKER_METRICS_PORT). */
export function metricsHttpServer(isHealthy: () => boolean): Server {
  return createServer((req, res) => {
    if (req.url === '/healthz') {
      const ok = isHealthy();
      res
        .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: ok ? 'ok' : 'unhealthy' }));
    } else if (req.url === '/metrics') {
      metricsRegistry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    } else {
      res.writeHead(404).end();
    }
  });
}

/**
 * Serves `metricsHttpServer` on `port` or, when taken (several processes on one host), on the next
 * free one of the following 20, saying which; a process never dies for its metrics endpoint.
 */
export async function serveMetrics(options: {
  jobs: QueueSource;
  port: number;
  host: string;
  log: Logger;
  /** The variable that sets the port, for the log lines. */
  variable: string;
  isHealthy: () => boolean;
}): Promise<Server> {
  const { port, log, variable } = options;
  trackQueues(options.jobs);
  const http = metricsHttpServer(options.isHealthy);
  const bound = await listenOnFreePort(http, port, options.host);
  if (bound === undefined)
    log.warn({ from: port }, `no free port for /metrics near ${variable}: this process serves none`);
  else if (bound !== port && port !== 0)
    log.warn({ wanted: port, port: bound }, `${variable} is taken: /healthz and /metrics on port ${bound}`);
  else log.info({ port: bound }, '/healthz and /metrics listening');
  return http;
}
