import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

const taskJob = z.strictObject({ taskId: z.string().min(1) });

/**
 * Every background job: its queue (one queue per job, so operators can give each its own workers
 * and concurrency), its data schema, and its retry policy. Processors are idempotent: the task's
 * stage in Postgres says what is left to do, so a job that runs twice changes nothing.
 */
export const JOBS = {
  'task-submit': { schema: taskJob, options: { attempts: 8, backoff: { type: 'exponential', delay: 1_000 } } },
  'task-poll': { schema: taskJob, options: { attempts: 6, backoff: { type: 'exponential', delay: 2_000 } } },
  'task-mirror': { schema: taskJob, options: { attempts: 5, backoff: { type: 'exponential', delay: 2_000 } } },
  'task-settle': { schema: taskJob, options: { attempts: 25, backoff: { type: 'exponential', delay: 1_000 } } },
  /** A private-protocol chat call (workers/private/run-chat.ts): a retry after a crash runs it again, charged once (the usage record is unique by call id). */
  // The body is on the call (read as the worker claims it); the job carries step 4's plan (shared/private/chat-job.ts).
  // A re-drive by the maintenance sweep carries only the id, and the worker plans the call then.
  'private-chat': {
    schema: z.strictObject({
      callId: z.string().min(1),
      models: z.array(z.string()).optional(),
      preferences: z
        .strictObject({
          order: z.array(z.string()).readonly().optional(),
          only: z.array(z.string()).readonly().optional(),
          allowFallbacks: z.boolean().optional(),
        })
        .optional(),
      bytes: z.number().int().nonnegative().optional(),
    }),
    options: { attempts: 3, backoff: { type: 'exponential', delay: 1_000 } },
  },
  /** An e-mail (codes, notices): sent by a worker so a slow SMTP server never holds a request. */
  mail: {
    schema: z.strictObject({ to: z.string().min(3), subject: z.string().min(1), text: z.string() }),
    options: { attempts: 8, backoff: { type: 'exponential', delay: 2_000 } },
  },
  'dataset-export': {
    schema: z.strictObject({ exportId: z.string().min(1) }),
    options: { attempts: 3, backoff: { type: 'exponential', delay: 2_000 } },
  },
  /** One attempt of a webhook delivery (workers/webhooks/deliver-webhook.ts); a failed attempt schedules the next as a new job, so these retries only cover errors of our own (Postgres away). */
  webhook: {
    schema: z.strictObject({ deliveryId: z.string().min(1) }),
    options: { attempts: 5, backoff: { type: 'exponential', delay: 1_000 } },
  },
  /**
   * A batch, from validation to its result files (workers/batches/run-batch.ts): resumable, each
   * line's result stored before it counts, so a run again after a crash goes on where it stopped.
   */
  batch: {
    schema: z.strictObject({ batchId: z.string().min(1) }),
    options: { attempts: 10, backoff: { type: 'exponential', delay: 2_000 } },
  },
  maintenance: { schema: z.strictObject({}), options: { attempts: 1 } },
} as const satisfies Record<string, { schema: z.ZodType; options: JobsOptions }>;

export type JobName = keyof typeof JOBS;
export type JobData<N extends JobName> = z.infer<(typeof JOBS)[N]['schema']>;
export const JOB_NAMES = Object.keys(JOBS) as JobName[];

/** Completed jobs are kept briefly for the dashboard; failed ones longer, for diagnosis. */
export const RETENTION: Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'> = {
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 7 * 86_400 },
};

/** BullMQ job ids may not contain ':'; one id per (job, task, step) makes re-adding a no-op while it exists. */
export function jobId(name: JobName, taskId: string, step = 0): string {
  return `${name}-${taskId}-${step}`;
}
