import { Counter } from 'prom-client';
import { metricsRegistry } from '../shared/telemetry/metrics.js';

// The workers' counters, on the process's one registry (shared/telemetry/metrics.ts: queue
// gauges, concurrency in use, the HTTP server that serves them).

export const usageRecordsDrained = new Counter({
  name: 'gateway_usage_records_drained_total',
  help: 'Usage records moved from the Redis stream into Postgres',
  registers: [metricsRegistry],
});

export const usageOverReservation = new Counter({
  name: 'gateway_usage_over_reservation_total',
  help: 'Calls whose upstream delivered more than was reserved (the excess charged from the balance as far as it goes)',
  registers: [metricsRegistry],
});

export const jobOutcomes = new Counter({
  name: 'gateway_jobs_total',
  help: 'Job attempts by queue and outcome',
  labelNames: ['queue', 'outcome'] as const,
  registers: [metricsRegistry],
});
