import { Queue } from 'bullmq';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobTraceCarrier, type TraceCarrier } from '../telemetry/spans.js';
import { JOBS, JOB_NAMES, RETENTION, type JobData, type JobName } from './catalog.js';

export interface EnqueueOptions {
  jobId: string;
  delay?: number;
}

/** Producers for every queue, on one shared connection (fails fast when Redis is away). */
export class JobQueues {
  readonly queues: ReadonlyMap<JobName, Queue>;

  constructor(connection: Redis, prefix: string) {
    this.queues = new Map(
      JOB_NAMES.map((name) => {
        const queue = new Queue(name, { connection, prefix });
        // Connection problems are the connection's to report; without a listener BullMQ prints each one.
        queue.on('error', () => {});
        return [name, queue];
      }),
    );
  }

  async enqueue<N extends JobName>(name: N, data: JobData<N>, options: EnqueueOptions): Promise<void> {
    const queue = this.queues.get(name)!;
    const parsed = JOBS[name].schema.parse(data) as Record<string, unknown>;
    // Every queue's jobs carry the trace context of the request that began them (while tracing is on).
    const trace = jobTraceCarrier();
    const stored = trace ? { ...parsed, [TRACE_FIELD]: trace } : parsed;
    await queue.add(name, stored, { ...JOBS[name].options, ...RETENTION, ...options });
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}

export function bullPrefix(redisPrefix: string): string {
  return `${redisPrefix}bull`;
}

/** Where a job's data keeps its trace context: beside the schema's fields, taken off before a processor reads them. */
const TRACE_FIELD = '_trace';

/** The trace context a job was enqueued with, removed from the data its processor sees. */
export function takeTraceCarrier(job: Job): TraceCarrier | undefined {
  const data = job.data as Record<string, unknown> | null;
  if (!data || typeof data !== 'object' || !(TRACE_FIELD in data)) return undefined;
  const { [TRACE_FIELD]: carrier, ...rest } = data;
  job.data = rest;
  const c = carrier as Partial<TraceCarrier> | null;
  return c && typeof c.traceparent === 'string' ? (c as TraceCarrier) : undefined;
}
