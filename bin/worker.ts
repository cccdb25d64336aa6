#!/usr/bin/env node
import { loadConfigOrExit } from '../shared/config.js';
import { createDb } from '../shared/db/index.js';
import { installShutdown } from '../shared/lifecycle/shutdown.js';
import { createLogger } from '../shared/log.js';
import { startWorkers } from '../workers/index.js';

// Background work alone; scale by running more of these against the same Postgres and Redis.
const config = loadConfigOrExit();
const log = createLogger(config.log.level);
const db = createDb(config.db.url, config.db.poolSize);
const workers = await startWorkers(config, db, log, true);
log.info({ metricsPort: config.worker.metricsPort }, 'gateway worker running');
installShutdown(log, [
  { name: 'finish jobs', run: () => workers.close(), timeoutMs: config.shutdownGraceMs },
  { name: 'close pools', run: () => db.destroy(), timeoutMs: 5_000 },
]);
