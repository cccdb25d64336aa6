import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { JobQueues } from '../shared/jobs/queues.js';

export const workerRegistry = new Registry();
collectDefaultMetrics({ register: workerRegistry });

export const usageRecordsDrained = new Counter({
  name: 'gateway_usage_records_drained_total',
  help: 'Usage records moved from the Redis stream into Postgres',
  registers: [workerRegistry],
});

export const usageOverReservation = new Counter({
  name: 'gateway_usage_over_reservation_total',
  help: 'Calls whose upstream delivered more than was reserved (the excess charged from the balance as far as it goes)',
  registers: [workerRegistry],
});

export const jobOutcomes = new Counter({
  name: 'gateway_jobs_total',
  help: 'Job attempts by queue and outcome',
  labelNames: ['queue', 'outcome'] as const,
  registers: [workerRegistry],
});

/** Jobs waiting, delayed, active and failed per queue, read from Redis when scraped. */
export function trackQueueDepth(jobs: JobQueues): void {
  new Gauge({
    name: 'gateway_queue_jobs',
    help: 'Jobs per queue and state',
    labelNames: ['queue', 'state'] as const,
    registers: [workerRegistry],
    async collect() {
      for (const [name, queue] of jobs.queues) {
        const counts = await queue.getJobCounts('waiting', 'delayed', 'active', 'failed', 'prioritized');
        for (const [state, n] of Object.entries(counts)) this.set({ queue: name, state }, n);
      }
    },
  });
}

/** /healthz and /metrics of a worker process (its only HTTP surface). */
export function workerHttpServer(isHealthy: () => boolean): Server {
  return createServer((req, res) => {
    if (req.url === '/healthz') {
      const ok = isHealthy();
      res
        .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: ok ? 'ok' : 'unhealthy' }));
    } else if (req.url === '/metrics') {
      workerRegistry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': workerRegistry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    } else {
      res.writeHead(404).end();
    }
  });
}
