import type { GatewayServices } from '../shared/gateway/services.js';
import { listenOnFreePort } from '../shared/lifecycle/http-server.js';
import { trackQueueDepth, workerHttpServer } from './metrics.js';
import { selectedQueues, startTaskWorkers } from './task-workers.js';
import { startUsageDrainer, type UsageDrainer } from './usage-drain.js';

export interface Workers {
  close(): Promise<void>;
}

/**
 * Every background job this process serves (WORKER_QUEUES): the usage drain, the task queues and
 * maintenance. `serveMetrics` is off when the API shares the process.
 */
export async function startWorkers(s: GatewayServices, serveMetrics: boolean): Promise<Workers> {
  const { config } = s;
  const selected = selectedQueues(config.worker.queues);
  let drainer: UsageDrainer | undefined;
  if (selected.has('usage')) {
    drainer = await startUsageDrainer({
      db: s.db,
      redis: config.redis,
      keys: s.redisKeys,
      batch: config.usage.drainBatch,
      log: s.log,
    });
  }
  const tasks = startTaskWorkers(s, {
    queues: config.worker.queues,
    concurrency: config.worker.concurrency,
    maintenanceEveryMs: config.tasks.maintenanceEveryMs,
    staleAfterMs: config.tasks.reconcileAfterMs,
    graceMs: config.shutdownGraceMs,
  });
  let stopping = false;
  const http = serveMetrics ? workerHttpServer(() => !stopping) : undefined;
  if (http) {
    trackQueueDepth(s.jobs);
    const port = await listenOnFreePort(http, config.worker.metricsPort, config.http.host);
    if (port === undefined)
      s.log.warn(
        { from: config.worker.metricsPort },
        'no free port for /metrics near WORKER_METRICS_PORT: this worker serves none',
      );
    else if (port !== config.worker.metricsPort)
      s.log.warn(
        { wanted: config.worker.metricsPort, port },
        `WORKER_METRICS_PORT is taken: /healthz and /metrics on port ${port}`,
      );
    else s.log.info({ port }, 'worker /healthz and /metrics listening');
  }
  return {
    async close() {
      stopping = true;
      await tasks.close();
      await drainer?.stop();
      http?.close();
    },
  };
}
