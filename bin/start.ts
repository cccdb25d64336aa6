#!/usr/bin/env node
import { startApiServer } from '../api/server.js';
import { startConsoleSiteOrWarn } from '../api/console-site/server.js';
import { consoleSiteSettingOrExit } from '../api/console-site/setting.js';
import { buildCatalog, type Catalog } from '../shared/catalog/index.js';
import { loadCatalogOrExit } from '../shared/catalog/load-for-process.js';
import { loadConfigOrExit } from '../shared/config.js';
import { migrate } from '../shared/db/migrate.js';
import { buildServices } from '../shared/gateway/build-services.js';
import { startBanner } from '../shared/lifecycle/local/banner.js';
import { probeServicesOrExit } from '../shared/lifecycle/local/probe.js';
import { provideLocalServicesOrExit } from '../shared/lifecycle/local/provide.js';
import { installShutdown } from '../shared/lifecycle/shutdown.js';
import { createLogger } from '../shared/log.js';
import { demoCatalog } from '../tools/demo/catalog.js';
import { DEMO_EMAIL, DEMO_PASSWORD, ensureDemoAccount } from '../tools/demo/account.js';
import { startUpstreamSim, type UpstreamSim } from '../tools/upstream-sim/index.js';
import { startWorkers } from '../workers/index.js';

// API and workers in one process, after migrating. Without CATALOG_FILE it is a self-contained
// demo: the upstream simulator runs in-process and a demo account is created. On a machine with
// nothing but Node.js it brings its own Postgres and Redis (shared/lifecycle/local/).
const local = await provideLocalServicesOrExit({ auto: true });
const consoleSetting = consoleSiteSettingOrExit(); // CONSOLE_PORT; CONSOLE_ORIGIN defaults to the site
const config = loadConfigOrExit();
const log = createLogger(config.log.level);
await probeServicesOrExit(config);
const migration = await migrate(config.db.url);
if (migration.applied.length) log.info({ applied: migration.applied }, 'migrations applied');

let sim: UpstreamSim | undefined;
let catalog: Catalog;
if (config.catalog.file) {
  catalog = await loadCatalogOrExit(config);
} else {
  sim = await startUpstreamSim({ defaults: { latencyMs: 20, chunkDelayMs: 15, prose: true } });
  catalog = buildCatalog(demoCatalog(sim.url), process.env, 'demo catalog');
}

const services = await buildServices(config, catalog, log);
const workers = await startWorkers(services, false);
const api = await startApiServer(services);
log.info({ url: api.url }, 'gateway listening');
const demo = sim ? { key: await ensureDemoAccount(services), email: DEMO_EMAIL, password: DEMO_PASSWORD } : undefined;
process.stdout.write(startBanner({ url: api.url, config, local, ...(demo && { demo }) }));
const site = await startConsoleSiteOrWarn(consoleSetting, api, {
  host: config.http.host,
  gatewayUrl: config.publicBaseUrl,
  captchaTestToken: config.console.captcha.testToken,
});
if (site) process.stdout.write(`console: ${site.url}\n\n`);

installShutdown(log, [
  { name: 'stop the console site', run: async () => site?.close(), timeoutMs: config.shutdownGraceMs },
  { name: 'stop accepting and finish requests', run: () => api.close(), timeoutMs: config.shutdownGraceMs },
  { name: 'finish or hand back jobs', run: () => workers.close(), timeoutMs: config.shutdownGraceMs + 5_000 },
  {
    name: 'close pools',
    run: async () => {
      await services.close();
      await sim?.close();
    },
    timeoutMs: 5_000,
  },
  { name: 'stop embedded Postgres and Redis', run: () => local.stop(), timeoutMs: 15_000 },
]);
