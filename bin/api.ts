#!/usr/bin/env node
import { startApiServer } from '../api/server.js';
import { loadCatalogOrExit } from '../shared/catalog/load-for-process.js';
import { loadConfigOrExit } from '../shared/config.js';
import { buildServices } from '../shared/gateway/build-services.js';
import { installShutdown } from '../shared/lifecycle/shutdown.js';
import { probeServicesOrExit } from '../shared/lifecycle/local/probe.js';
import { provideLocalServicesOrExit } from '../shared/lifecycle/local/provide.js';
import { createLogger } from '../shared/log.js';
import { serveMetrics } from '../shared/telemetry/metrics.js';
import { startTracing } from '../shared/telemetry/tracing.js';

// The HTTP API alone; run several behind a load balancer and `npm run worker` beside them.
// DATABASE_URL / REDIS_URL = embedded reuse (or start) the servers `npm start` keeps under DATA_DIR.
const local = await provideLocalServicesOrExit({ auto: false });
const config = loadConfigOrExit();
const log = createLogger(config.log.level);
const tracing = startTracing(config.telemetry.tracing, log);
await probeServicesOrExit(config);
const catalog = await loadCatalogOrExit(config);
const services = await buildServices(config, catalog, log);
const api = await startApiServer(services);
log.info({ url: api.url }, 'gateway API listening');
let stopping = false;
const metrics = await serveMetrics({
  jobs: services.jobs,
  port: config.telemetry.metricsPort,
  host: config.http.host,
  log,
  variable: 'METRICS_PORT',
  isHealthy: () => !stopping,
});
installShutdown(log, [
  {
    name: 'stop accepting and finish requests',
    run: () => {
      stopping = true;
      return api.close();
    },
    timeoutMs: config.shutdownGraceMs,
  },
  { name: 'close pools', run: () => services.close(), timeoutMs: 5_000 },
  { name: 'send the last spans', run: () => tracing.shutdown(), timeoutMs: 5_000 },
  { name: 'stop /metrics', run: async () => void metrics.close(), timeoutMs: 1_000 },
  { name: 'stop embedded services', run: () => local.stop(), timeoutMs: 15_000 },
]);
