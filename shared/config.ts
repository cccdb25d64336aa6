import { storageConfig, type StorageConfig } from './storage/config.js';
import { consoleConfig, consoleEnvIssues, type ConsoleConfig } from './console/config.js';
import type { ImageFetchLimits } from './assets/fetch-images.js';
import type { RedisTarget } from './redis/client.js';
import { telemetryConfig, telemetryEnvIssues, type TelemetryConfig } from './telemetry/config.js';
import { batchConfig, type BatchConfig } from './batches/config.js';
import { webhookConfig, webhookEnvIssues, type WebhookConfig } from './webhooks/config.js';
import { envSchema, type Env } from './config-env.js';

export { ENV_VARIABLES, type Env } from './config-env.js';

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
