// `npm start`'s demo as a console user meets it: one process (API, workers and the console site),
// the built-in upstream simulator and the demo account, in a database, Redis prefix and DATA_DIR
// of its own, removed at the end.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { BenchRun } from './bench-run.js';
import { databaseUrl, dropBenchState } from './gateway.js';
import { freePort, readLineMatching, type Child } from './processes.js';

export interface RunningDemo {
  /** The gateway, `http://127.0.0.1:<PORT>`. */
  gatewayUrl: string;
  /** The console site as the start banner prints it, `http://localhost:<CONSOLE_PORT>`. */
  consoleUrl: string;
  /** Its DATA_DIR: `demo-key.txt` holds the demo account's key. */
  dataDir: string;
  process: Child;
  close(): Promise<void>;
}

export async function startDemo(
  run: BenchRun,
  root: string,
  options: { postgresAdminUrl: string; redisUrl: string },
): Promise<RunningDemo> {
  const dbName = `gw_bench_${Date.now()}`;
  const redisPrefix = `gwbench:${randomBytes(4).toString('hex')}:`;
  const dataDir = path.join(run.tmpDir, 'data');
  const [port, consolePort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const { CATALOG_FILE: _catalog, ...env } = process.env; // no catalog: the demo
  const child = run.spawn('demo', path.join(root, 'dist/bin/start.js'), [], {
    cwd: root,
    env: {
      ...env,
      DATABASE_URL: databaseUrl(options.postgresAdminUrl, dbName),
      REDIS_URL: options.redisUrl,
      REDIS_PREFIX: redisPrefix,
      PORT: String(port),
      CONSOLE_PORT: String(consolePort),
      METRICS_PORT: String(metricsPort),
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
  });
  const [, consoleUrl] = await readLineMatching(child, /^console: (http\S+)/);
  return {
    gatewayUrl: `http://127.0.0.1:${port}`,
    consoleUrl: consoleUrl!,
    dataDir,
    process: child,
    async close() {
      await child.stop(15_000);
      const redis = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
      const admin = new pg.Client({ connectionString: options.postgresAdminUrl });
      await Promise.all([redis.connect(), admin.connect()]);
      try {
        await dropBenchState(redis, redisPrefix, admin, dbName);
      } finally {
        redis.disconnect();
        await admin.end();
      }
    },
  };
}
