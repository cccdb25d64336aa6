import { z } from 'zod';

/** The batch variables, spread into the one environment schema in shared/config.ts. */
export const batchEnvShape = {
  /** Lines of one account run at once, across all its batches and all worker processes (a slot in Redis per running lane). */
  BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** Largest batch input file, bytes (OpenAI's 200 MB). */
  BATCH_FILE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(200 * 1024 * 1024),
  /** Most lines in one batch input file (OpenAI's 50,000). */
  BATCH_FILE_MAX_LINES: z.coerce.number().int().min(1).default(50_000),
  /** What `completion_window: "24h"` lasts, ms; tests shorten it rather than wait a day. */
  BATCH_COMPLETION_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(24 * 60 * 60 * 1000),
};

type BatchEnv = z.infer<z.ZodObject<typeof batchEnvShape>>;

export interface BatchConfig {
  concurrency: number;
  maxFileBytes: number;
  maxFileLines: number;
  windowMs: number;
}

export function batchConfig(e: BatchEnv): BatchConfig {
  return {
    concurrency: e.BATCH_CONCURRENCY,
    maxFileBytes: e.BATCH_FILE_MAX_BYTES,
    maxFileLines: e.BATCH_FILE_MAX_LINES,
    windowMs: e.BATCH_COMPLETION_WINDOW_MS,
  };
}
