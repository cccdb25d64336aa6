import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../shared/lifecycle/local/embedded-postgres.js';
import { REDIS_MISSING, startEmbeddedRedis } from '../../shared/lifecycle/local/embedded-redis.js';
import { answers } from '../../shared/lifecycle/local/free-port.js';
import { DEFAULT_POSTGRES } from './default-postgres.js';
import { ServiceError } from '../../shared/lifecycle/local/service-error.js';
import type { LocalService } from '../../shared/lifecycle/local/embedded-postgres.js';

/** What the test run uses; `stop` ends what it started itself. */
export interface TestServices {
  stop(): Promise<void>;
}

/**
 * The Postgres and Redis a test run needs, as `npm start` finds them: the machine's own at the
 * default addresses (or TEST_DATABASE_URL / REDIS_URL), else servers of our own under a scratch
 * folder — the embedded Postgres, and redis-server from PATH. Several tests start redis-server
 * themselves (restarts, failover), so a machine without it stops here, in one line, before any test.
 * The URLs in use are written to process.env, which every test process inherits.
 */
export async function provideTestServices(): Promise<TestServices> {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error) {
    process.stderr.write(`npm test: ${REDIS_MISSING}\n`);
    process.exit(1);
  }
  const wantPostgres =
    process.env.TEST_DATABASE_URL === undefined && !(await answers(DEFAULT_POSTGRES.host, DEFAULT_POSTGRES.port, 500));
  const wantRedis = process.env.REDIS_URL === undefined && !(await answers('127.0.0.1', 6379, 500));
  if (!wantPostgres && !wantRedis) return { stop: async () => {} };

  const scratch = await mkdtemp(path.join(tmpdir(), 'gw-test-services-'));
  const started: LocalService[] = [];
  if (wantPostgres) {
    const pg = await startEmbeddedPostgres(scratch, 'postgres').catch((err: Error) => {
      if (!(err instanceof ServiceError)) throw err;
      process.stderr.write(`npm test: ${err.message} (or TEST_DATABASE_URL)\n`);
      process.exit(1);
    });
    started.push(pg);
    process.env.TEST_DATABASE_URL = pg.url;
  }
  if (wantRedis) {
    const redis = await startEmbeddedRedis(scratch);
    started.push(redis);
    process.env.REDIS_URL = redis.url;
  }
  return {
    async stop() {
      for (const service of started.reverse()) await service.stop().catch(() => {});
      await rm(scratch, { recursive: true, force: true });
    },
  };
}
