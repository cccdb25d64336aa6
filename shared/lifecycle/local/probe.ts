import pg from 'pg';
import { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { createObjectStore } from '../../storage/index.js';
import { answers } from './free-port.js';

const TIMEOUT_MS = 3_000;

/** A URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

function reason(err: unknown): string {
  const e = err as { code?: string; message?: string; errors?: Array<{ message?: string }> };
  // pg and net report an AggregateError for hosts with several addresses: name the first.
  const message = e.errors?.[0]?.message ?? e.message ?? String(err);
  return message.split('\n')[0]!;
}

async function probePostgres(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: TIMEOUT_MS });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    // A missing database is fine: migrations create it.
    if ((err as { code?: string }).code === '3D000') return undefined;
    return `Postgres at ${redact(url)} (DATABASE_URL) did not answer: ${reason(err)} — start PostgreSQL there, point DATABASE_URL at a running one, or leave DATABASE_URL unset for \`npm start\` to run an embedded one under DATA_DIR`;
  } finally {
    await client.end().catch(() => {});
  }
}

async function probeRedis(url: string): Promise<string | undefined> {
  const fail = (why: string) =>
    `Redis at ${redact(url)} (REDIS_URL) did not answer: ${why} — start redis-server there, point REDIS_URL at a running one, or leave REDIS_URL unset for \`npm start\` to run one under DATA_DIR`;
  const { hostname, port } = new URL(url);
  const host = hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  // ioredis only says "Connection is closed" when nothing listens: ask the socket first.
  if (!(await answers(host, Number(port) || 6379, TIMEOUT_MS)))
    return fail(`nothing accepts connections at ${host}:${Number(port) || 6379}`);
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (err) {
    return fail(reason(err));
  } finally {
    client.disconnect();
  }
}

async function probeStorage(config: Config): Promise<string | undefined> {
  if (config.storage.objects.driver !== 's3') return undefined;
  const store = createObjectStore(config.storage.objects);
  try {
    await Promise.race([
      store.ensureReady(),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS)),
    ]);
    return undefined;
  } catch (err) {
    return `object storage (S3 bucket ${config.storage.objects.bucket}${config.storage.objects.endpoint ? ` at ${config.storage.objects.endpoint}` : ''}) is not usable: ${reason(err)} — check S3_ENDPOINT, S3_BUCKET and the credentials, or unset S3_BUCKET to keep files under DATA_DIR`;
  } finally {
    store.close();
  }
}

export interface Needs {
  redis?: boolean;
  storage?: boolean;
}

/** Every service the process needs (Postgres always), probed at once with a short timeout: one line per failure. */
export async function probeServices(config: Config, needs: Needs = {}): Promise<string[]> {
  const results = await Promise.all([
    probePostgres(config.db.url),
    // Through Sentinels a process waits for a master instead of exiting: one may be elected any
    // moment, and an orchestrator restarting the process would only loop (the trouble is logged once).
    needs.redis === false || config.redis.sentinels ? undefined : probeRedis(config.redis.url),
    needs.storage === false ? undefined : probeStorage(config),
  ]);
  return results.filter((line): line is string => line !== undefined);
}

/** Prints the failures, one line each, and exits non-zero; returns when every service answered. */
export async function probeServicesOrExit(config: Config, which: Needs = {}): Promise<void> {
  const failures = await probeServices(config, which);
  if (failures.length === 0) return;
  for (const line of failures) process.stderr.write(`error: ${line}\n`);
  process.exit(1);
}
