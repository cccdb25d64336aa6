import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
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
    await queue.add(name, JOBS[name].schema.parse(data), { ...JOBS[name].options, ...RETENTION, ...options });
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}

export function bullPrefix(redisPrefix: string): string {
  return `${redisPrefix}bull`;
}
