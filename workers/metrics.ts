import { createServer, type Server } from 'node:http';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

export const workerRegistry = new Registry();
collectDefaultMetrics({ register: workerRegistry });

export const usageRecordsDrained = new Counter({
  name: 'gateway_usage_records_drained_total',
  help: 'Usage records moved from the Redis stream into Postgres',
  registers: [workerRegistry],
});

/** /healthz and /metrics of a worker process (its only HTTP surface). */
export function workerHttpServer(isHealthy: () => boolean): Server {
  return createServer((req, res) => {
    if (req.url === '/healthz') {
      const ok = isHealthy();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ok ? 'ok' : 'unhealthy' }));
    } else if (req.url === '/metrics') {
      workerRegistry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': workerRegistry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    } else {
      res.writeHead(404).end();
    }
  });
}
