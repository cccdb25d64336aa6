import path from 'node:path';
import { z } from 'zod';
import type { ObjectStoreConfig } from './index.js';

const optionalString = z.string().min(1).optional();

/** The storage variables, spread into the one environment schema in shared/config.ts. */
export const storageEnvShape = {
  /** Default: `s3` when S3_BUCKET is set, else `local`. */
  STORAGE_DRIVER: z.enum(['s3', 'local']).optional(),
  /** Local driver directory; default `<DATA_DIR>/objects`. */
  STORAGE_DIR: optionalString,
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_BUCKET: optionalString,
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  /** Default: true when S3_ENDPOINT is set (MinIO and most S3-compatible servers need it). */
  S3_FORCE_PATH_STYLE: z.stringbool().optional(),
  /** Multipart part size; S3's minimum is 5. */
  S3_PART_SIZE_MB: z.coerce.number().int().min(5).max(5120).default(8),
  S3_UPLOAD_QUEUE_SIZE: z.coerce.number().int().min(1).max(16).default(3),
  /** HMAC key for file links; unset: a random one kept in `<DATA_DIR>/link-secret`. */
  STORAGE_LINK_SECRET: z.string().min(32).optional(),
  STORAGE_LINK_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(7 * 24 * 3600)
    .default(3600),
};

type StorageEnv = z.infer<z.ZodObject<typeof storageEnvShape>>;

/** Problems that involve two variables; pass to `.superRefine` so they are listed with the rest. */
export function checkStorageEnv(e: StorageEnv, ctx: z.RefinementCtx): void {
  if (e.STORAGE_DRIVER === 's3' && !e.S3_BUCKET) {
    ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'required when STORAGE_DRIVER=s3' });
  }
  if (!e.S3_ACCESS_KEY_ID !== !e.S3_SECRET_ACCESS_KEY) {
    ctx.addIssue({
      code: 'custom',
      path: ['S3_SECRET_ACCESS_KEY'],
      message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together',
    });
  }
}

export interface StorageConfig {
  objects: ObjectStoreConfig;
  /** Undefined: load one with `loadOrCreateLinkSecret(dataDir)` at start. */
  linkSecret: string | undefined;
  linkTtlSeconds: number;
}

export function storageConfig(e: StorageEnv, dataDir: string): StorageConfig {
  const driver = e.STORAGE_DRIVER ?? (e.S3_BUCKET ? 's3' : 'local');
  const objects: ObjectStoreConfig =
    driver === 's3'
      ? {
          driver,
          endpoint: e.S3_ENDPOINT,
          region: e.S3_REGION,
          bucket: e.S3_BUCKET ?? '',
          accessKeyId: e.S3_ACCESS_KEY_ID,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY,
          forcePathStyle: e.S3_FORCE_PATH_STYLE ?? e.S3_ENDPOINT !== undefined,
          partSize: e.S3_PART_SIZE_MB * 1024 * 1024,
          queueSize: e.S3_UPLOAD_QUEUE_SIZE,
        }
      : { driver, directory: e.STORAGE_DIR ?? path.join(dataDir, 'objects') };
  return { objects, linkSecret: e.STORAGE_LINK_SECRET, linkTtlSeconds: e.STORAGE_LINK_TTL_SECONDS };
}
