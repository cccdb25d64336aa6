import { CallWaiter } from '../private/call-waiter.js';
import { BalanceStore } from '../billing/balance.js';
import { QuotaStore } from '../billing/quota.js';
import { systemClock, type Clock } from '../clock.js';
import { Admissions } from '../limits/admission.js';
import { Limiter } from '../limits/limiter.js';
import { defineScripts } from '../lifecycle/redis-scripts.js';
import { JobQueues, bullPrefix } from '../jobs/queues.js';
import { createObjectStore, loadOrCreateLinkSecret } from '../storage/index.js';
import type { Catalog } from '../catalog/index.js';
import type { Config } from '../config.js';
import { createDb, logLostConnections } from '../db/index.js';
import { KeyCache } from '../keys/key-cache.js';
import type { Logger } from '../log.js';
import { UpstreamRegistry } from '../providers/registry.js';
import { connectRedis, createRedis, createStepRedis, reportRedisErrors } from '../redis/client.js';
import { redisKeys } from '../redis/keys.js';
import { AccountHealth } from '../routing/account-health.js';
import { LatencyTracker } from '../routing/latency.js';
import { RoutingCache } from '../routing/routing-cache.js';
import { openResponseCache } from './open-response-cache.js';
import type { GatewayServices } from './services.js';

export interface RunningServices extends GatewayServices {
  close(): Promise<void>;
}

/** Connects everything a gateway process needs, once. */
export async function buildServices(
  config: Config,
  catalog: Catalog,
  log: Logger,
  clock: Clock = systemClock,
): Promise<RunningServices> {
  const db = createDb(config.db.url, config.db.poolSize, {
    connectTimeoutMs: config.db.connectTimeoutMs,
    onConnectionError: logLostConnections(log),
  });
  const redis = createRedis(config.redis);
  // Admissions and finishes go out batched on a connection of their own (see createStepRedis).
  const stepConnection = createStepRedis(config.redis);
  // The subscriber only subscribes, at start and after each reconnect: a Redis slow to answer (a busy
  // host) makes the start wait, as connectRedis does, rather than fail it after the 2 s command timeout.
  const subscriber = createRedis(config.redis, { maxRetriesPerRequest: null, commandTimeout: undefined });
  reportRedisErrors(redis, log, 'commands');
  reportRedisErrors(stepConnection, log, 'admissions');
  reportRedisErrors(subscriber, log, 'subscriber');
  defineScripts(redis);
  defineScripts(stepConnection);
  await Promise.all([connectRedis(redis), connectRedis(stepConnection), connectRedis(subscriber)]);
  const keys = redisKeys(config.redis.prefix);
  const keyCache = new KeyCache(db, config.keys.cacheTtlMs);
  await keyCache.subscribe(subscriber, keys.keyInvalidation);
  const calls = new CallWaiter(keys.callEnded);
  await calls.subscribe(subscriber);
  const upstreams = new UpstreamRegistry(catalog, config.upstream);
  // A producer connection of its own: BullMQ's scripts should not queue behind admission scripts.
  const jobConnection = createRedis(config.redis);
  reportRedisErrors(jobConnection, log, 'job producer');
  await connectRedis(jobConnection);
  const jobs = new JobQueues(jobConnection, bullPrefix(config.redis.prefix));
  const storage = createObjectStore(config.storage.objects);
  await storage.ensureReady();
  const linkSecret = Buffer.from(config.storage.linkSecret ?? (await loadOrCreateLinkSecret(config.dataDir)));
  const balances = new BalanceStore(redis, db, keys);
  const quotas = new QuotaStore(redis, db, keys);
  const admissions = new Admissions(redis, keys, balances, quotas, config.billing, stepConnection);
  // A key changed or revoked (or its account's limits): its grants go back at once, on every process.
  subscriber.on('message', (channel: string, message: string) => {
    if (channel === keys.keyInvalidation) admissions.dropGrants(message);
  });
  const responseCache = await openResponseCache(config, redis, keys, clock, log);
  const now = () => clock.now();
  const latency = new LatencyTracker(redis, config.redis.prefix, now);
  const routing = {
    catalog,
    upstreams,
    health: new AccountHealth(redis, config.redis.prefix, now, {
      threshold: config.routing.breakerThreshold,
      windowMs: config.routing.breakerWindowMs,
      cooldownMs: config.routing.breakerCooldownMs,
      maxCooldownMs: config.routing.breakerMaxCooldownMs,
      cacheMs: 500,
    }),
    latency,
    cache: new RoutingCache(db),
  };
  return {
    config,
    log,
    db,
    redis,
    redisKeys: keys,
    catalog,
    upstreams,
    keyCache,
    clock,
    balances,
    quotas,
    admissions,
    limiter: new Limiter(redis, keys, clock),
    jobs,
    storage,
    linkSecret,
    routing,
    calls,
    responseCache: responseCache.store,
    async close() {
      latency.close();
      await latency.flush().catch(() => undefined);
      // Calls answered just before the stop are settled in the turn they ended, and grants go
      // back (those of calls still running go back as they end): wait for the answers.
      admissions.dropAllGrants();
      await admissions.settled();
      admissions.renewer.stop();
      await jobs.close();
      jobConnection.disconnect();
      storage.close();
      await upstreams.close();
      subscriber.disconnect();
      await responseCache.close();
      await stepConnection.quit().catch(() => stepConnection.disconnect());
      await redis.quit().catch(() => redis.disconnect());
      await db.destroy();
    },
  };
}
