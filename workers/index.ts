import type { GatewayServices } from '../shared/gateway/services.js';
import { serveMetrics as serveMetricsOn } from '../shared/telemetry/metrics.js';
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
  const http = serveMetrics
    ? await serveMetricsOn({
        jobs: s.jobs,
        port: config.worker.metricsPort,
        host: config.http.host,
        log: s.log,
        variable: 'WORKER_METRICS_PORT',
        isHealthy: () => !stopping,
      })
    : undefined;
  return {
    async close() {
      stopping = true;
      await tasks.close();
      await drainer?.stop();
      http?.close();
    },
  };
}
