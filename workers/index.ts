import type { Config } from '../shared/config.js';
import type { Db } from '../shared/db/index.js';
import { listen } from '../shared/lifecycle/http-server.js';
import type { Logger } from '../shared/log.js';
import { redisKeys } from '../shared/redis/keys.js';
import { workerHttpServer } from './metrics.js';
import { startUsageDrainer } from './usage-drain.js';

export interface Workers {
  close(): Promise<void>;
}

/** Every background job of this process; `serveMetrics` is off when the API shares the process. */
export async function startWorkers(config: Config, db: Db, log: Logger, serveMetrics: boolean): Promise<Workers> {
  const drainer = await startUsageDrainer({ db, redisUrl: config.redis.url, keys: redisKeys(config.redis.prefix), batch: config.usage.drainBatch, log });
  let stopping = false;
  const http = serveMetrics ? workerHttpServer(() => !stopping) : undefined;
  if (http) await listen(http, config.worker.metricsPort, config.http.host);
  return {
    async close() {
      stopping = true;
      await drainer.stop();
      http?.close();
    },
  };
}
