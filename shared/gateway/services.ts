import type { RoutingServices } from '../routing/plan.js';
import type { Redis } from 'ioredis';
import type { BalanceStore } from '../billing/balance.js';
import type { QuotaStore } from '../billing/quota.js';
import type { Catalog } from '../catalog/index.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { KeyCache } from '../keys/key-cache.js';
import type { Admissions } from '../limits/admission.js';
import type { Limiter } from '../limits/limiter.js';
import type { JobQueues } from '../jobs/queues.js';
import type { Logger } from '../log.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { UpstreamRegistry } from '../providers/registry.js';
import type { RedisKeys } from '../redis/keys.js';
import type { CallWaiter } from '../private/call-waiter.js';
import type { ResponseCacheStore } from '../response-cache/store.js';

/** Everything a gateway surface needs, built once per process. */
export interface GatewayServices {
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  readonly db: Db;
  readonly redis: Redis;
  readonly redisKeys: RedisKeys;
  readonly catalog: Catalog;
  readonly upstreams: UpstreamRegistry;
  readonly keyCache: KeyCache;
  readonly balances: BalanceStore;
  readonly quotas: QuotaStore;
  readonly admissions: Admissions;
  readonly limiter: Limiter;
  /** Producers of the background jobs (task submit, poll, mirror, settle). */
  readonly jobs: JobQueues;
  /** Where mirrored results and uploads live. */
  readonly storage: ObjectStore;
  /** Signs the short-lived links to stored files; the same on every process. */
  readonly linkSecret: Buffer;
  /** Model resolution (auto, presets), upstream-account health and latency samples, templates. */
  readonly routing: RoutingServices;
  /** Wakes the private-protocol calls waiting for a job to end. */
  readonly calls: CallWaiter;
  /** The exact-match response cache's storage (docs/reference/cache.md). */
  readonly responseCache: ResponseCacheStore;
}
