#!/usr/bin/env node
import { startApiServer } from '../api/server.js';
import { startConsoleSiteOrWarn } from '../api/console-site/server.js';
import { consoleSiteSettingOrExit } from '../api/console-site/setting.js';
import { buildCatalog, type Catalog } from '../shared/catalog/index.js';
import { loadCatalogOrExit } from '../shared/catalog/load-for-process.js';
import { loadConfigOrExit } from '../shared/config.js';
import { migrate } from '../shared/db/migrate.js';
import { buildServices } from '../shared/gateway/build-services.js';
import { directUploadOrigin } from '../shared/storage/upload-origin.js';
import { startBanner } from '../shared/lifecycle/local/banner.js';
import { probeServicesOrExit } from '../shared/lifecycle/local/probe.js';
import { provideLocalServicesOrExit } from '../shared/lifecycle/local/provide.js';
import { installShutdown } from '../shared/lifecycle/shutdown.js';
import { createLogger } from '../shared/log.js';
import { serveMetrics } from '../shared/telemetry/metrics.js';
import { startTracing } from '../shared/telemetry/tracing.js';
import type { LocalServices } from '../shared/lifecycle/local/provide.js';
import { startWorkers } from '../workers/index.js';

// API and workers in one process, after migrating. Without CATALOG_FILE it is a self-contained
// demo: the upstream simulator runs in-process and a demo account is created. On a machine with
// nothing but Node.js it brings its own Postgres and Redis (shared/lifecycle/local/).
const local = await provideLocalServicesOrExit({ auto: true });
const consoleSetting = consoleSiteSettingOrExit(); // CONSOLE_PORT; CONSOLE_ORIGIN defaults to the site
const config = loadConfigOrExit();
const demoParts = config.catalog.file ? undefined : await loadDemoOrExit(local);
const log = createLogger(config.log.level);
const tracing = startTracing(config.telemetry.tracing, log);
await probeServicesOrExit(config);
const migration = await migrate(config.db.url);
if (migration.applied.length) log.info({ applied: migration.applied }, 'migrations applied');

const sim =
  demoParts && (await demoParts.startUpstreamSim({ defaults: { latencyMs: 20, chunkDelayMs: 15, prose: true } }));
const catalog: Catalog = demoParts
  ? buildCatalog(demoParts.demoCatalog(sim!.url), process.env, 'demo catalog')
  : await loadCatalogOrExit(config);

const services = await buildServices(config, catalog, log);
const workers = await startWorkers(services, false);
const api = await startApiServer(services);
log.info({ url: api.url }, 'gateway listening');
// One /metrics for the API and the workers this process runs (METRICS_PORT).
let stopping = false;
const metrics = await serveMetrics({
  jobs: services.jobs,
  port: config.telemetry.metricsPort,
  host: config.http.host,
  log,
  variable: 'METRICS_PORT',
  isHealthy: () => !stopping,
});
const demo = demoParts && {
  key: await demoParts.ensureDemoAccount(services),
  email: demoParts.DEMO_EMAIL,
  password: demoParts.DEMO_PASSWORD,
};
process.stdout.write(startBanner({ url: api.url, config, local, ...(demo && { demo }) }));
const site = await startConsoleSiteOrWarn(consoleSetting, api, {
  host: config.http.host,
  gatewayUrl: config.publicBaseUrl,
  captchaTestToken: config.console.captcha.testToken,
  uploadOrigin: await directUploadOrigin(services.storage),
});
if (site) process.stdout.write(`console: ${site.url}\n\n`);

installShutdown(log, [
  { name: 'stop the console site', run: async () => site?.close(), timeoutMs: config.shutdownGraceMs },
  {
    name: 'stop accepting and finish requests',
    run: () => {
      stopping = true;
      return api.close();
    },
    timeoutMs: config.shutdownGraceMs,
  },
  { name: 'finish or hand back jobs', run: () => workers.close(), timeoutMs: config.shutdownGraceMs + 5_000 },
  {
    name: 'close pools',
    run: async () => {
      await services.close();
      await sim?.close();
    },
    timeoutMs: 5_000,
  },
  { name: 'send the last spans', run: () => tracing.shutdown(), timeoutMs: 5_000 },
  { name: 'stop /metrics', run: async () => void metrics.close(), timeoutMs: 1_000 },
  { name: 'stop embedded Postgres and Redis', run: () => local.stop(), timeoutMs: 15_000 },
]);

/**
 * The demo's parts (the upstream simulator, the demo catalog and account), loaded only in demo mode:
 * production builds such as the Docker image leave tools/ out, and there demo mode stops in one line.
 */
async function loadDemoOrExit(local: LocalServices) {
  try {
    const [sim, catalog, account] = await Promise.all([
      import('../tools/upstream-sim/index.js'),
      import('../tools/demo/catalog.js'),
      import('../tools/demo/account.js'),
    ]);
    return { ...sim, ...catalog, ...account };
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    if (code !== 'ERR_MODULE_NOT_FOUND' || !/[\\/]tools[\\/]/.test(message)) throw err;
    await local.stop();
    process.stderr.write(
      'error: demo mode (no CATALOG_FILE) needs the upstream simulator, which this build leaves out (tools/): set CATALOG_FILE to your catalog, or run the demo from a checkout with `npm start`\n',
    );
    process.exit(1);
  }
}
