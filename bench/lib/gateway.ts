// The gateway under test: API and worker as separate processes, a fresh database, its own Redis prefix.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { redisKeys } from '../../shared/redis/keys.js';
import { usageDrained } from '../../shared/usage/drain.js';
import { freePort, spawnNode, type Child } from './processes.js';

const run = promisify(execFile);

export interface GatewayUnderTest {
  url: string;
  api: Child;
  worker: Child;
  /** The `Authorization` header value for the bench key. */
  authorization: string;
  dbName: string;
  redisPrefix: string;
  redis: Redis;
  /** The environment the API and the worker run with (database, Redis prefix, catalog...). */
  env: NodeJS.ProcessEnv;
  /** The bench user's e-mail (the owner of `authorization`) and the key's id. */
  email: string;
  keyId: string;
  /** The bench database's connection URL. */
  databaseUrl: string;
  /** Runs `dist/bin/cli.js` against the bench database and returns its JSON output. */
  cli(args: string[]): Promise<Record<string, unknown>>;
  /** Starts one more worker process (`extraEnv` over `env`); it is stopped by `close()` too. */
  spawnWorker(name: string, extraEnv?: Record<string, string>): Child;
  /** Postgres backend pids serving the bench database (the API's and the worker's pools). */
  postgresBackends(): Promise<number[]>;
  /** Waits until the worker has written every queued usage record (bounded by timeoutMs). */
  usageDrained(timeoutMs?: number): Promise<boolean>;
  /** Usage records by status and error code, to show what the gateway answered. */
  usageSummary(): Promise<{ status_code: number; error_code: string | null; stream: boolean; n: number }[]>;
  close(): Promise<void>;
}

export interface GatewaySetup {
  root: string;
  tmpDir: string;
  logDir: string;
  /** Upstream base URLs (no /v1) by provider id. */
  upstreams: Record<string, string>;
  /** Model id → provider id. */
  models: Record<string, string>;
  postgresAdminUrl: string;
  redisUrl: string;
  /** Node flags for the API process (e.g. --cpu-prof to profile it under the benchmark's load). */
  apiNodeArgs?: string[];
  /** Catalog entries added to the chat providers/models above (task providers, video models, limited groups). */
  catalogExtra?: { providers?: unknown[]; models?: unknown[]; groups?: unknown[] };
  /** Extra environment for the API and every worker. */
  env?: Record<string, string>;
  /** Extra environment for the worker started with the gateway only (e.g. `WORKER_QUEUES=usage`). */
  workerEnv?: Record<string, string>;
}

export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function cli(root: string, env: NodeJS.ProcessEnv, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [path.join(root, 'dist/bin/cli.js'), ...args], { cwd: root, env });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
}

async function waitHealthy(url: string, child: Child, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.proc.exitCode !== null)
      throw new Error(`${child.name} exited with code ${child.proc.exitCode} (see its log)`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.name} did not become ready at ${url}`);
}

export async function startGateway(setup: GatewaySetup): Promise<GatewayUnderTest> {
  const dbName = `gw_bench_${Date.now()}`;
  const redisPrefix = `gwbench:${randomBytes(4).toString('hex')}:`;
  const catalogFile = path.join(setup.tmpDir, 'catalog.yaml');
  // JSON is YAML: the catalog document, one provider per simulator, one model per provider.
  await writeFile(
    catalogFile,
    JSON.stringify(
      {
        providers: [
          ...Object.entries(setup.upstreams).map(([id, url]) => ({
            id,
            protocol: 'openai',
            base_url: `${url}/v1`,
            api_key: 'bench-upstream-secret',
          })),
          ...(setup.catalogExtra?.providers ?? []),
        ],
        models: [
          ...Object.entries(setup.models).map(([id, provider]) => ({
            id,
            endpoints: ['chat/completions'],
            routes: [{ provider }],
            pricing: { input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 },
            max_output_tokens: 1000,
          })),
          ...(setup.catalogExtra?.models ?? []),
        ],
        groups: [{ id: 'default', models: ['*'] }, ...(setup.catalogExtra?.groups ?? [])],
      },
      null,
      2,
    ),
  );
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl(setup.postgresAdminUrl, dbName),
    REDIS_URL: setup.redisUrl,
    REDIS_PREFIX: redisPrefix,
    CATALOG_FILE: catalogFile,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    WORKER_METRICS_PORT: '0',
    DATA_DIR: path.join(setup.tmpDir, 'data'),
    ...setup.env,
  };

  await cli(setup.root, env, ['migrate']);
  const email = `bench-${randomBytes(3).toString('hex')}@example.test`;
  // A trillion micro-USD ($1M): no phase can run out of balance.
  await cli(setup.root, env, [
    'user:create',
    '--email',
    email,
    '--password',
    'bench-password-123',
    '--balance-micro-usd',
    '1000000000000',
  ]);
  const created = await cli(setup.root, env, ['key:create', '--email', email, '--name', 'bench']);
  if (typeof created.key !== 'string') throw new Error(`key:create printed no key: ${JSON.stringify(created)}`);

  const api = spawnNode('gateway-api', path.join(setup.root, 'dist/bin/api.js'), [], {
    env,
    cwd: setup.root,
    logDir: setup.logDir,
    nodeArgs: setup.apiNodeArgs,
  });
  const spawnWorker = (name: string, extraEnv: Record<string, string> = {}): Child => {
    const child = spawnNode(name, path.join(setup.root, 'dist/bin/worker.js'), [], {
      env: { ...env, ...extraEnv },
      cwd: setup.root,
      logDir: setup.logDir,
    });
    child.proc.stdout?.resume();
    return child;
  };
  const worker = spawnWorker('gateway-worker', setup.workerEnv);
  const extraWorkers: Child[] = [];
  api.proc.stdout?.resume();
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, api);

  const redis = new Redis(setup.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await redis.connect();
  const admin = new pg.Client({ connectionString: setup.postgresAdminUrl });
  await admin.connect();
  const keys = redisKeys(redisPrefix);
  const drained = () => usageDrained(redis, keys);

  return {
    url,
    api,
    worker,
    authorization: `Bearer ${created.key}`,
    dbName,
    redisPrefix,
    redis,
    env,
    email,
    keyId: String(created.id),
    databaseUrl: databaseUrl(setup.postgresAdminUrl, dbName),
    cli: (args) => cli(setup.root, env, args),
    spawnWorker(name, extraEnv) {
      const child = spawnWorker(name, extraEnv);
      extraWorkers.push(child);
      return child;
    },
    async postgresBackends() {
      const rows = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName]);
      return rows.rows.map((r) => r.pid);
    },
    async usageDrained(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (await drained()) return true;
        await new Promise((r) => setTimeout(r, 50));
      }
      return false;
    },
    async usageSummary() {
      const db = new pg.Client({ connectionString: databaseUrl(setup.postgresAdminUrl, dbName) });
      await db.connect();
      try {
        const rows = await db.query<{ status_code: number; error_code: string | null; stream: boolean; n: string }>(
          'SELECT status_code, error_code, stream, count(*) AS n FROM usage_records GROUP BY 1, 2, 3 ORDER BY 4 DESC',
        );
        return rows.rows.map((r) => ({ ...r, n: Number(r.n) }));
      } finally {
        await db.end();
      }
    },
    async close() {
      await Promise.all([api.stop(30_000), worker.stop(), ...extraWorkers.map((w) => w.stop(15_000))]);
      await dropBenchState(redis, redisPrefix, admin, dbName);
      redis.disconnect();
      await admin.end();
    },
  };
}

/** A run's own Redis keys and database, removed at its end (its processes stopped first). */
export async function dropBenchState(redis: Redis, redisPrefix: string, admin: pg.Client, dbName: string) {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(dbName)} WITH (FORCE)`);
}
