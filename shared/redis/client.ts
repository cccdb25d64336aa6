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
      // REDIS_URL's scheme says whether the master and replicas speak TLS (`rediss://`).
      enableTLSForSentinelMode: target.url.startsWith('rediss://'),
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

/**
 * Connects and waits until Redis answers; used at start so the first request is not refused. A
 * first attempt that fails (a master just killed, its successor not elected yet) is retried by the
 * client, so this waits for 'ready' rather than giving up with the first error.
 */
export async function connectRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return;
  const ready = new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  if (redis.status === 'wait') redis.connect().catch(() => {});
  await ready;
}

/** A Sentinel's answer that it monitors no master by that name (ioredis words it two ways). */
const NO_SUCH_MASTER = /No such master|invalid reply: null/;

/**
 * Logs a connection's trouble once per kind, not once per reconnect attempt (a Redis away for a
 * minute would otherwise write hundreds of lines), and once more when it answers again. A Sentinel
 * that knows no master by that name says so in plain words: when none of them does, in the one
 * line of the failed round; when another found the master, once for that Sentinel.
 */
export function reportRedisErrors(redis: Redis, log: Logger, role: string): void {
  let last: string | undefined;
  const name = (redis.options as { name?: string }).name;
  // Sentinels of the current round that named no master; reported only if another one did.
  let strangers = new Set<string>();
  const toldOf = new Set<string>();
  redis.on('sentinelError', (err: Error) => {
    if (!NO_SUCH_MASTER.test(err.message)) return;
    strangers.add(/sentinel (\S+)/.exec(err.message)?.[1] ?? 'unknown');
  });
  redis.on('error', (err: Error) => {
    let message = err.message;
    if (NO_SUCH_MASTER.test(message) || (strangers.size > 0 && /All sentinels are unreachable/.test(message)))
      message = `no Sentinel of REDIS_SENTINELS knows a master named '${name}' (REDIS_SENTINEL_NAME); retrying`;
    strangers = new Set();
    // Retry delays differ between attempts; the kind of trouble does not.
    const kind = message.replace(/\d+ms/g, '');
    if (kind === last) return;
    last = kind;
    log.warn({ redis: role, err: message }, 'redis connection problem');
  });
  redis.on('ready', () => {
    for (const sentinel of strangers) {
      if (toldOf.has(sentinel)) continue;
      toldOf.add(sentinel);
      log.warn(
        { redis: role, sentinel },
        `Sentinel ${sentinel} knows no master named '${name}' (REDIS_SENTINEL_NAME); the master was found through another`,
      );
    }
    strangers = new Set();
    if (last === undefined) return;
    last = undefined;
    log.info({ redis: role }, 'redis connection ready again');
  });
}
