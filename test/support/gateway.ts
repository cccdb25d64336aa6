import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { createRequestListener } from '../../api/app.js';
import { createUser } from '../../shared/accounts/create-user.js';
import { creditBalance } from '../../shared/billing/credit.js';
import { buildCatalog } from '../../shared/catalog/index.js';
import type { Clock } from '../../shared/clock.js';
import { parseConfig } from '../../shared/config.js';
import { buildServices, type RunningServices } from '../../shared/gateway/build-services.js';
import { createKey } from '../../shared/keys/manage-keys.js';
import type { KeyCreate } from '../../shared/keys/key-settings.js';
import { createLogger } from '../../shared/log.js';
import { startUsageDrainer, type UsageDrainer } from '../../workers/usage-drain.js';
import { startUpstreamSim, type UpstreamSim, type UpstreamSimOptions } from '../../tools/upstream-sim/index.js';
import { testCatalog } from './catalog.js';
import { cloneTemplate } from './databases.js';

export interface TestGateway {
  url: string;
  sim: UpstreamSim;
  services: RunningServices;
  drainer: UsageDrainer;
  env: Record<string, string>;
  /** A user with a password `password123` and a key; balance in micro-USD. */
  account(options?: {
    balance?: number;
    key?: KeyCreate;
    email?: string;
  }): Promise<{ userId: string; email: string; key: string; keyId: string }>;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  sim?: UpstreamSimOptions;
  /** Domain time (quota days and months, rate windows); tests move it with `offsetClock`. */
  clock?: Clock;
  catalog?: (simUrl: string) => unknown;
  env?: Record<string, string>;
}

/** A real gateway on an ephemeral port: its own database (cloned template), Redis prefix and simulator. */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const sim = await startUpstreamSim(options.sim ?? {});
  const dbUrl = await cloneTemplate(inject('templateDb'), inject('runId'));
  const prefix = `gwt:${randomBytes(4).toString('hex')}:`;
  // Local files (the link secret, the local object store) go to a temp dir, never into the checkout.
  const dataDir = await mkdtemp(path.join(tmpdir(), 'gw-test-'));
  const redisUrl: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
  const env = {
    DATABASE_URL: dbUrl,
    ...redisUrl,
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    PORT: '0',
    DATA_DIR: dataDir,
    ROUTING_BREAKER_THRESHOLD: '0',
    SIGNIN_IP_LIMIT: '100000',
    ...options.env,
  };
  const config = parseConfig(env);
  const catalog = buildCatalog((options.catalog ?? testCatalog)(sim.url));
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const services = await buildServices(config, catalog, log, options.clock);
  const drainer = await startUsageDrainer({
    db: services.db,
    redis: config.redis,
    keys: services.redisKeys,
    batch: 500,
    log,
    idleMs: 20,
  });
  const server: Server = createServer(createRequestListener(services)).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let accounts = 0;

  return {
    url,
    sim,
    services,
    drainer,
    env,
    async account(o = {}) {
      const email = o.email ?? `user${++accounts}-${randomBytes(3).toString('hex')}@example.test`;
      const user = await createUser(services.db, email, 'password123');
      if (o.balance) await creditBalance(services.db, services.balances, user.id, o.balance, 'test credit');
      const admin = { db: services.db, redis: services.redis, channel: services.redisKeys.keyInvalidation, catalog };
      const { row, key } = await createKey(admin, user.id, o.key ?? {});
      return { userId: user.id, email, key, keyId: row.id };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await drainer.stop();
      await deleteRedisPrefix(services, prefix);
      await services.close();
      await sim.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function deleteRedisPrefix(services: RunningServices, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await services.redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length) await services.redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** A clock that runs with real time plus an offset the test moves. */
export function offsetClock(): Clock & { advance(ms: number): void; set(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(ms: number) {
      offset += ms;
    },
    set(ms: number) {
      offset = ms - Date.now();
    },
  };
}
