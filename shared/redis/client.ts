import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../log.js';

/**
 * Where Redis is: one address (`url`), or the Sentinels that name the current master of
 * `sentinelName` (REDIS_SENTINELS). With Sentinels, `url` still gives the master's password,
 * database and TLS; its host and port are not used.
 */
export interface RedisTarget {
  readonly url: string;
  readonly sentinels?: readonly { host: string; port: number }[];
  readonly sentinelName?: string;
  readonly sentinelPassword?: string;
}

/** ioredis reports a lost master as these errors; the connection is remade against the new one. */
const REPLICA_OR_LOADING = /^(READONLY|LOADING|MASTERDOWN)/;

/**
 * The one place a Redis client is made: every connection of the gateway (commands, scripts, the
 * key-change subscriber, BullMQ's queues and workers, the usage drain) goes through here, so a
 * Sentinel setup reaches all of them.
 *
 * Commands fail fast while Redis is unreachable (no offline queue, one retry) so a request answers
 * 503 at once instead of hanging; the client keeps reconnecting in the background and recovers by itself.
 */
export function createRedis(target: RedisTarget, overrides: RedisOptions = {}): Redis {
  const base: RedisOptions = {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // A stalled Redis answers 503 after this, rather than holding every call.
    commandTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    // Commands issued in the same tick (many concurrent calls) go out in one write.
    enableAutoPipelining: true,
    lazyConnect: true,
  };
  if (target.sentinels && target.sentinels.length > 0) {
    Object.assign(base, {
      sentinels: target.sentinels.map((s) => ({ host: s.host, port: s.port })),
      name: target.sentinelName ?? 'mymaster',
      sentinelPassword: target.sentinelPassword,
      // Sentinels announce a new master (+switch-master): the client moves at once, not at its
      // next failed command.
      failoverDetector: true,
      sentinelRetryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
      // A demoted master answers READONLY: the command was not run, so only the connection is
      // remade (1 = reconnect without resending; the caller sees the error and retries or answers 503).
      reconnectOnError: (err: Error) => (REPLICA_OR_LOADING.test(err.message) ? 1 : false),
    } satisfies RedisOptions);
  }
  return new Redis(target.url, { ...base, ...overrides });
}

/**
 * The connection the batched admissions and settlements go out on (shared/limits/step-batch.ts).
 * The gateway batches them itself, so no auto-pipelining. And a command sent when the connection
 * drops is never sent again: Redis may already have run it (the reply was what got lost), and an
 * admission or a settlement run twice moves money twice. Its caller gets an error instead (after
 * the command timeout) and what the call held expires on its own.
 */
export function createStepRedis(target: RedisTarget): Redis {
  return createRedis(target, { enableAutoPipelining: false, autoResendUnfulfilledCommands: false });
}

/**
 * A connection that waits for Redis instead of failing fast: BullMQ's workers (which require
 * `maxRetriesPerRequest: null`) and the usage drain, which have no caller to answer.
 */
export function createPatientRedis(target: RedisTarget, overrides: RedisOptions = {}): Redis {
  return createRedis(target, {
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    commandTimeout: undefined,
    ...overrides,
  });
}

/** Connects and waits until Redis answers; used at start so the first request is not refused. */
export async function connectRedis(redis: Redis): Promise<void> {
  if (redis.status === 'wait') await redis.connect();
  else if (redis.status !== 'ready') await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
}

/**
 * Logs a connection's trouble once per kind, not once per reconnect attempt (a Redis away for a
 * minute would otherwise write hundreds of lines), and once more when it answers again. A Sentinel
 * that knows no master by that name says so in plain words.
 */
export function reportRedisErrors(redis: Redis, log: Logger, role: string): void {
  let last: string | undefined;
  const sentinelName = (redis.options as { name?: string }).name;
  let unknownMaster = false;
  redis.on('sentinelError', (err: Error) => {
    // The Sentinel answered, with no address for the name: a wrong REDIS_SENTINEL_NAME.
    if (/invalid reply: null|No such master/.test(err.message)) unknownMaster = true;
  });
  redis.on('error', (err: Error) => {
    let message = err.message;
    if (/No such master/.test(message) || (unknownMaster && /All sentinels are unreachable/.test(message)))
      message = `no Sentinel of REDIS_SENTINELS knows a master named '${sentinelName}' (REDIS_SENTINEL_NAME); retrying`;
    unknownMaster = false;
    // Retry delays differ between attempts; the kind of trouble does not.
    const kind = message.replace(/\d+ms/g, '');
    if (kind === last) return;
    last = kind;
    log.warn({ redis: role, err: message }, 'redis connection problem');
  });
  redis.on('ready', () => {
    if (last === undefined) return;
    last = undefined;
    log.info({ redis: role }, 'redis connection ready again');
  });
}
