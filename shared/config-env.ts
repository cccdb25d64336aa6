// The environment the gateway reads, as one zod schema (shared/config.ts turns it into the Config).
import { z } from 'zod';
import { checkStorageEnv, storageEnvShape } from './storage/config.js';
import { telemetryEnvShape } from './telemetry/config.js';
import { batchEnvShape } from './batches/config.js';
import { webhookEnvShape } from './webhooks/config.js';

const int = (def: number) => z.coerce.number().int().nonnegative().default(def);
const optionalString = z.string().min(1).optional();

// One schema for the whole environment: every problem is reported at once, then the process stops.
export const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    // Unset: 0.0.0.0, or 127.0.0.1 in demo mode (no CATALOG_FILE), whose sign-in is printed for all to read.
    HOST: optionalString,
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    TRUST_PROXY: z.stringbool().default(false),
    // Unset: 1 when TRUST_PROXY is on, else 0. Set, it wins over TRUST_PROXY.
    TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(16).optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    DATABASE_URL: z.url().default('postgres://postgres@127.0.0.1:5432/gateway'),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
    // A Postgres that does not answer (a cut network drops packets, no reset) fails a query after
    // this rather than holding its call; also the longest a query waits for a free pooled connection.
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    REDIS_URL: z.url().default('redis://127.0.0.1:6379'),
    REDIS_PREFIX: z.string().default('gw:'),
    // Set: every Redis client finds the master through these Sentinels (REDIS_URL then gives only
    // the master's password, database and TLS).
    REDIS_SENTINELS: z
      .string()
      .regex(
        /^\s*[^\s,:]+:\d{1,5}\s*(,\s*[^\s,:]+:\d{1,5}\s*)*$/,
        'a comma-separated list of host:port (the Sentinels to ask for the master)',
      )
      .optional(),
    REDIS_SENTINEL_NAME: z.string().min(1).default('mymaster'),
    REDIS_SENTINEL_PASSWORD: optionalString,
    // The response cache's own bound (Redis runs with noeviction): beyond it, answers are no longer stored.
    CACHE_MAX_BYTES: int(256 * 1024 * 1024),
    // Unset: the response cache lives in the gateway's Redis (REDIS_URL, or the Sentinel set).
    CACHE_REDIS_URL: z.url().optional(),
    CATALOG_FILE: optionalString,
    DATA_DIR: z.string().default('./data'),
    BODY_LIMIT_BYTES: int(10 * 1024 * 1024),
    UPSTREAM_CONNECTIONS: z.coerce.number().int().min(1).default(256),
    UPSTREAM_HEADERS_TIMEOUT_MS: int(120_000),
    UPSTREAM_BODY_TIMEOUT_MS: int(300_000),
    KEY_CACHE_TTL_MS: int(60_000),
    RESERVATION_TTL_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .default(15 * 60_000),
    LEASE_TTL_MS: z.coerce.number().int().min(1_000).default(60_000),
    ADMISSION_GRANTS: z.stringbool().default(true),
    SESSION_TTL_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .default(24 * 7),
    USAGE_DRAIN_BATCH: z.coerce.number().int().min(1).max(5000).default(500),
    USAGE_RETENTION_DAYS: int(0),
    ASSET_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .max(100 * 1024 * 1024)
      .default(100 * 1024 * 1024),
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9091),
    SHUTDOWN_GRACE_MS: int(25_000),
    TASK_DEADLINE_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .default(3 * 60 * 60 * 1000),
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    OPERATOR_TOKEN: z.string().min(16, 'use at least 16 characters').optional(),
    SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
    MAIL_FROM: z.string().min(3).default('Model Gateway <no-reply@localhost>'),
    CONSOLE_ORIGIN: z.url({ protocol: /^https?$/ }).optional(),
    SIGNIN_IP_LIMIT: z.coerce.number().int().min(1).default(100),
    ACCOUNT_LOCK_THRESHOLD: z.coerce.number().int().min(1).default(10),
    ACCOUNT_LOCK_WINDOW_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .default(15 * 60),
    ACCOUNT_LOCK_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .default(15 * 60),
    VERIFICATION_CODE_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(30)
      .default(10 * 60),
    VERIFICATION_COOLDOWN_SECONDS: z.coerce.number().int().min(1).default(60),
    CAPTCHA_VERIFY_URL: z.url({ protocol: /^https?$/ }).optional(),
    CAPTCHA_SECRET: optionalString,
    CAPTCHA_TEST_TOKEN: optionalString,
    OIDC_PROVIDERS: z
      .string()
      .regex(
        /^\s*([a-z][a-z0-9-]{0,31}\s*(,\s*|$))*$/,
        'a comma-separated list of provider names (lower-case letters, digits, hyphens)',
      )
      .default(''),
    WEBAUTHN_RP_ID: optionalString,
    WEBAUTHN_RP_NAME: z.string().min(1).default('Model Gateway'),
    WEBAUTHN_ORIGIN: z.url({ protocol: /^https?$/ }).optional(),
    WORKER_QUEUES: z.string().default('all'),
    WORKER_CONCURRENCY: z.string().default(''),
    // A dead worker's job (a task's charge among them) is taken up within lock + interval, ~7 s.
    WORKER_LOCK_MS: z.coerce.number().int().min(1_000).default(5_000),
    WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(2_000),
    MAINTENANCE_EVERY_MS: z.coerce.number().int().min(100).default(30_000),
    TASK_RECONCILE_AFTER_MS: z.coerce.number().int().min(100).default(120_000),
    TASK_FIRST_POLL_MS: z.coerce.number().int().min(50).default(2_000),
    ROUTING_BREAKER_THRESHOLD: int(5),
    ROUTING_BREAKER_WINDOW_MS: z.coerce.number().int().min(100).default(30_000),
    ROUTING_BREAKER_COOLDOWN_MS: z.coerce.number().int().min(100).default(15_000),
    ROUTING_BREAKER_MAX_COOLDOWN_MS: z.coerce.number().int().min(100).default(300_000),
    IMAGE_FETCH_MAX_IMAGES: z.coerce.number().int().min(0).max(1_000).default(20),
    IMAGE_FETCH_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .max(100 * 1024 * 1024)
      .default(10 * 1024 * 1024),
    IMAGE_FETCH_TOTAL_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .max(1024 * 1024 * 1024)
      .default(20 * 1024 * 1024),
    IMAGE_FETCH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    IMAGE_FETCH_TRUSTED_ADDRESSES: z.string().default(''),
    ...storageEnvShape,
    ...webhookEnvShape,
    ...telemetryEnvShape,
    ...batchEnvShape,
  })
  .superRefine(checkStorageEnv);

export type Env = z.infer<typeof envSchema>;

/** Every variable the gateway reads (deploy manifests are checked against it). */
export const ENV_VARIABLES: readonly string[] = Object.keys(envSchema.shape);
