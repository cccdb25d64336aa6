#!/usr/bin/env node
import { startApiServer } from '../api/server.js';
import { loadCatalogOrExit } from '../shared/catalog/load-for-process.js';
import { loadConfigOrExit } from '../shared/config.js';
import { buildServices } from '../shared/gateway/build-services.js';
import { installShutdown } from '../shared/lifecycle/shutdown.js';
import { probeServicesOrExit } from '../shared/lifecycle/local/probe.js';
import { provideLocalServicesOrExit } from '../shared/lifecycle/local/provide.js';
import { createLogger } from '../shared/log.js';

// The HTTP API alone; run several behind a load balancer and `npm run worker` beside them.
// DATABASE_URL / REDIS_URL = embedded reuse (or start) the servers `npm start` keeps under DATA_DIR.
const local = await provideLocalServicesOrExit({ auto: false });
const config = loadConfigOrExit();
const log = createLogger(config.log.level);
await probeServicesOrExit(config);
const catalog = await loadCatalogOrExit(config);
const services = await buildServices(config, catalog, log);
const api = await startApiServer(services);
log.info({ url: api.url }, 'gateway API listening');
installShutdown(log, [
  { name: 'stop accepting and finish requests', run: () => api.close(), timeoutMs: config.shutdownGraceMs },
  { name: 'close pools', run: () => services.close(), timeoutMs: 5_000 },
  { name: 'stop embedded services', run: () => local.stop(), timeoutMs: 15_000 },
]);
