import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startEmbeddedPostgres, type LocalService } from './embedded-postgres.js';
import { startEmbeddedRedis } from './embedded-redis.js';
import { answers } from './free-port.js';
import { ServiceError } from './service-error.js';

export type ServiceSource = 'embedded' | 'external';

export interface LocalServices {
  /** The environment with DATABASE_URL / REDIS_URL pointing at what is in use. */
  readonly env: NodeJS.ProcessEnv;
  readonly postgres: ServiceSource;
  readonly redis: ServiceSource;
  /** Stops what this process started (last, after the pools are closed). */
  stop(): Promise<void>;
}

/**
 * `DATABASE_URL=embedded` / `REDIS_URL=embedded` run our own servers under DATA_DIR; with
 * `auto` (npm start), so does an unset variable when nothing answers at the default address — so
 * `npm ci && npm start` works on a machine with nothing but Node.js. Anything else is left as is.
 */
export async function provideLocalServices(env: NodeJS.ProcessEnv, options: { auto: boolean }): Promise<LocalServices> {
  const dataDir = env.DATA_DIR ?? './data';
  const wants = async (value: string | undefined, port: number) =>
    value === 'embedded' || (options.auto && value === undefined && !(await answers('127.0.0.1', port, 500)));
  const [pgWanted, redisWanted] = await Promise.all([
    wants(env.DATABASE_URL, 5432),
    env.REDIS_SENTINELS ? false : wants(env.REDIS_URL, 6379),
  ]);
  const started: LocalService[] = [];
  // `npm start` owns the servers under its DATA_DIR, also those a crashed earlier run left behind;
  // a CLI or API process that reuses them while that owner lives leaves them running.
  const owner = path.resolve(dataDir, 'local-services.pid');
  const previousOwner = Number(await readFile(owner, 'utf8').catch(() => ''));
  const takeOver = options.auto && !alive(previousOwner);
  const stop = async () => {
    for (const service of started.reverse()) if (service.owned || takeOver) await service.stop().catch(() => {});
  };
  try {
    const resolved: NodeJS.ProcessEnv = { ...env };
    if (pgWanted) {
      const pg = await startEmbeddedPostgres(dataDir);
      started.push(pg);
      resolved.DATABASE_URL = pg.url;
    }
    if (redisWanted) {
      const redis = await startEmbeddedRedis(dataDir);
      started.push(redis);
      resolved.REDIS_URL = redis.url;
    }
    if (takeOver && started.length) await writeFile(owner, String(process.pid));
    return {
      env: resolved,
      postgres: pgWanted ? 'embedded' : 'external',
      redis: redisWanted ? 'embedded' : 'external',
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * `provideLocalServices` for this process: the URLs in use are written back to `process.env` (where
 * the config is read from); an expected failure prints its one line and exits 1.
 */
export async function provideLocalServicesOrExit(options: { auto: boolean }): Promise<LocalServices> {
  try {
    const local = await provideLocalServices(process.env, options);
    for (const name of ['DATABASE_URL', 'REDIS_URL'] as const)
      if (local.env[name] !== undefined) process.env[name] = local.env[name];
    return local;
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
