#!/usr/bin/env node
import { loadCatalogOrExit } from '../shared/catalog/load-for-process.js';
import { loadConfigOrExit } from '../shared/config.js';
import { buildServices } from '../shared/gateway/build-services.js';
import { installShutdown } from '../shared/lifecycle/shutdown.js';
import { probeServicesOrExit } from '../shared/lifecycle/local/probe.js';
import { provideLocalServicesOrExit } from '../shared/lifecycle/local/provide.js';
import { createLogger } from '../shared/log.js';
import { startTracing } from '../shared/telemetry/tracing.js';
import { startWorkers } from '../workers/index.js';

// Background work alone; scale by running more of these against the same Postgres and Redis.
// DATABASE_URL / REDIS_URL = embedded reuse (or start) the servers `npm start` keeps under DATA_DIR.
const local = await provideLocalServicesOrExit({ auto: false });
const config = loadConfigOrExit();
const log = createLogger(config.log.level);
const tracing = startTracing(config.telemetry.tracing, log);
await probeServicesOrExit(config);
const catalog = await loadCatalogOrExit(config);
const services = await buildServices(config, catalog, log);
const workers = await startWorkers(services, true);
log.info({ metricsPort: config.worker.metricsPort, queues: config.worker.queues }, 'gateway worker running');
installShutdown(log, [
  { name: 'finish or hand back jobs', run: () => workers.close(), timeoutMs: config.shutdownGraceMs + 5_000 },
  { name: 'close pools', run: () => services.close(), timeoutMs: 5_000 },
  { name: 'send the last spans', run: () => tracing.shutdown(), timeoutMs: 5_000 },
  { name: 'stop embedded services', run: () => local.stop(), timeoutMs: 15_000 },
]);
