import { z } from 'zod';
import { checkStorageEnv, storageConfig, storageEnvShape, type StorageConfig } from './storage/config.js';
import { consoleConfig, consoleEnvIssues, type ConsoleConfig } from './console/config.js';
import type { ImageFetchLimits } from './assets/fetch-images.js';
import type { RedisTarget } from './redis/client.js';
import { telemetryConfig, telemetryEnvIssues, telemetryEnvShape, type TelemetryConfig } from './telemetry/config.js';
import { batchConfig, batchEnvShape, type BatchConfig } from './batches/config.js';
import { webhookConfig, webhookEnvIssues, webhookEnvShape, type WebhookConfig } from './webhooks/config.js';

const int = (def: number) => z.coerce.number().int().nonnegative().default(def);
const optionalString = z.string().min(1).optional();

// One schema for the whole environment: every problem is reported at once, then the process stops.
const envSchema = z
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

export interface Config {
  readonly env: Env['NODE_ENV'];
  /** `proxyHops`: appending proxies trusted in X-Forwarded-For (api/http/exchange.ts, clientIp); 0 = none. */
  readonly http: Readonly<{ host: string; port: number; proxyHops: number; bodyLimitBytes: number }>;
  readonly log: Readonly<{ level: Env['LOG_LEVEL'] }>;
  readonly db: Readonly<{ url: string; poolSize: number; connectTimeoutMs: number }>;
  /** `sentinels` set: the master is found through them by `sentinelName` (shared/redis/client.ts). */
  readonly redis: Readonly<RedisTarget & { prefix: string }>;
  /** The exact-match response cache (docs/reference/cache.md): its byte budget, and its own Redis when set. */
  /**
   * `redis`: the cache's own Redis (CACHE_REDIS_URL), one address used as given, never found through
   * REDIS_SENTINELS; unset, the cache is on the gateway's Redis (docs/reference/cache.md, "Storage").
   */
  readonly responseCache: Readonly<{ maxBytes: number; redis: RedisTarget | undefined }>;
  readonly catalog: Readonly<{ file: string | undefined }>;
  readonly dataDir: string;
  readonly upstream: Readonly<{ connections: number; headersTimeoutMs: number; bodyTimeoutMs: number }>;
  readonly keys: Readonly<{ cacheTtlMs: number }>;
  /** SMTP (`smtp://` or `smtps://`); without it mails go to `<DATA_DIR>/outbox`. */
  readonly mail: Readonly<{ smtpUrl: string | undefined; from: string; outboxDir: string }>;
  /** `grants`: far from its limits a key is admitted from a grant held in process (shared/limits/grants.ts). */
  readonly billing: Readonly<{ reservationTtlMs: number; leaseTtlMs: number; grants: boolean }>;
  readonly console: Readonly<ConsoleConfig>;
  readonly usage: Readonly<{ drainBatch: number; retentionDays: number }>;
  /** Largest original asset upload, bytes (at most the spec's 100 MiB). */
  readonly assetMaxBytes: number;
  readonly worker: Readonly<{
    metricsPort: number;
    queues: string;
    concurrency: string;
    lockMs: number;
    stalledIntervalMs: number;
  }>;
  readonly shutdownGraceMs: number;
  readonly tasks: Readonly<{
    deadlineMs: number;
    maintenanceEveryMs: number;
    reconcileAfterMs: number;
    firstPollMs: number;
  }>;
  readonly storage: Readonly<StorageConfig>;
  /** Upstream-route health: failures within the window that rest a route (0 = never rested), cooldowns. */
  readonly routing: Readonly<{
    breakerThreshold: number;
    breakerWindowMs: number;
    breakerCooldownMs: number;
    breakerMaxCooldownMs: number;
  }>;
  /** Origin of every URL the gateway hands out; unset = the origin the request came to. */
  readonly publicBaseUrl: string | undefined;
  /** Bearer token of the operator endpoints (queue dashboard); unset = they are off. */
  readonly operatorToken: string | undefined;
  /** Image URLs the gateway fetches itself (generateContent upstreams, `accepts_urls: false` models). */
  readonly imageFetch: Readonly<ImageFetchLimits>;
  /** Endpoint URL rules and the retry base (docs/reference/webhooks.md). */
  readonly webhooks: Readonly<WebhookConfig>;
  /** Access log, the API's metrics port, traces (shared/telemetry). */
  readonly telemetry: Readonly<TelemetryConfig>;
  /** Batch files and execution (docs/reference/batches.md). */
  readonly batches: Readonly<BatchConfig>;
}

export class ConfigError extends Error {}

function parseSentinels(list: string | undefined): RedisTarget['sentinels'] {
  if (list === undefined) return undefined;
  return list.split(',').map((entry) => {
    const [host, port] = entry.trim().split(':');
    return { host: host!, port: Number(port) };
  });
}

export function parseConfig(source: NodeJS.ProcessEnv): Config {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const issues = [...consoleEnvIssues(e, source), ...webhookEnvIssues(e), ...telemetryEnvIssues(e)];
  if (issues.length > 0) throw new ConfigError(`invalid environment:\n${issues.map((i) => `  ${i}`).join('\n')}`);
  return deepFreeze({
    env: e.NODE_ENV,
    http: {
      host: e.HOST ?? (e.CATALOG_FILE ? '0.0.0.0' : '127.0.0.1'),
      port: e.PORT,
      proxyHops: e.TRUST_PROXY_HOPS ?? (e.TRUST_PROXY ? 1 : 0),
      bodyLimitBytes: e.BODY_LIMIT_BYTES,
    },
    log: { level: e.LOG_LEVEL },
    db: { url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE, connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS },
    redis: {
      url: e.REDIS_URL,
      prefix: e.REDIS_PREFIX,
      sentinels: parseSentinels(e.REDIS_SENTINELS),
      sentinelName: e.REDIS_SENTINEL_NAME,
      sentinelPassword: e.REDIS_SENTINEL_PASSWORD,
    },
    responseCache: { maxBytes: e.CACHE_MAX_BYTES, redis: e.CACHE_REDIS_URL ? { url: e.CACHE_REDIS_URL } : undefined },
    catalog: { file: e.CATALOG_FILE },
    dataDir: e.DATA_DIR,
    upstream: {
      connections: e.UPSTREAM_CONNECTIONS,
      headersTimeoutMs: e.UPSTREAM_HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: e.UPSTREAM_BODY_TIMEOUT_MS,
    },
    keys: { cacheTtlMs: e.KEY_CACHE_TTL_MS },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, outboxDir: `${e.DATA_DIR.replace(/\/+$/, '')}/outbox` },
    billing: { reservationTtlMs: e.RESERVATION_TTL_MS, leaseTtlMs: e.LEASE_TTL_MS, grants: e.ADMISSION_GRANTS },
    console: consoleConfig(e, source),
    usage: { drainBatch: e.USAGE_DRAIN_BATCH, retentionDays: e.USAGE_RETENTION_DAYS },
    assetMaxBytes: e.ASSET_MAX_BYTES,
    worker: {
      metricsPort: e.WORKER_METRICS_PORT,
      queues: e.WORKER_QUEUES,
      concurrency: e.WORKER_CONCURRENCY,
      lockMs: e.WORKER_LOCK_MS,
      stalledIntervalMs: e.WORKER_STALLED_INTERVAL_MS,
    },
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    tasks: {
      deadlineMs: e.TASK_DEADLINE_MS,
      maintenanceEveryMs: e.MAINTENANCE_EVERY_MS,
      reconcileAfterMs: e.TASK_RECONCILE_AFTER_MS,
      firstPollMs: e.TASK_FIRST_POLL_MS,
    },
    storage: storageConfig(e, e.DATA_DIR),
    routing: {
      breakerThreshold: e.ROUTING_BREAKER_THRESHOLD,
      breakerWindowMs: e.ROUTING_BREAKER_WINDOW_MS,
      breakerCooldownMs: e.ROUTING_BREAKER_COOLDOWN_MS,
      breakerMaxCooldownMs: Math.max(e.ROUTING_BREAKER_MAX_COOLDOWN_MS, e.ROUTING_BREAKER_COOLDOWN_MS),
    },
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    operatorToken: e.OPERATOR_TOKEN,
    imageFetch: {
      maxImages: e.IMAGE_FETCH_MAX_IMAGES,
      maxBytes: e.IMAGE_FETCH_MAX_BYTES,
      totalBytes: e.IMAGE_FETCH_TOTAL_BYTES,
      concurrency: e.IMAGE_FETCH_CONCURRENCY,
      trusted: e.IMAGE_FETCH_TRUSTED_ADDRESSES.split(',')
        .map((a) => a.trim())
        .filter((a) => a !== ''),
    },
    webhooks: webhookConfig(e),
    telemetry: telemetryConfig(e),
    batches: batchConfig(e),
  });
}

/** Reads the process environment once; a bad value stops the process with every problem named. */
export function loadConfigOrExit(): Config {
  try {
    return parseConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (v && typeof v === 'object') deepFreeze(v as object);
  return Object.freeze(value);
}
