// Redis behind Sentinel: a real master, one replica and three Sentinels. The master is killed while
// tasks run, just after asynchronous replication fell behind (the replica's link held, so the jobs
// of the last tasks never reached it). Within 20 s the gateway answers calls again through the
// promoted replica, the workers resume, the tasks whose jobs the failover dropped are re-driven from
// Postgres by the Redis-loss watcher (the reconciler stays at its production 2 minutes), and every
// task and call is charged exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.js';
import { setKeyStatus } from '../../shared/keys/manage-keys.js';
import type { Logger } from '../../shared/log.js';
import { connectRedis, createRedis, reportRedisErrors } from '../../shared/redis/client.js';
import { Redis } from 'ioredis';
import { ask, chat } from '../cache-response/support.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat, waitUntil } from '../support/http.js';
import { startRedisServer } from '../support/limits.js';
import { freePort } from '../support/processes.js';
import { drained, expectConsistentLedger, usageRecords } from '../support/money.js';
import { MASTER_NAME, startSentinelSet, type SentinelSet } from '../support/sentinel.js';
import {
  createVideo,
  startTaskGateway,
  taskRow,
  videoBody,
  VIDEO_PER_SECOND,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

const PRICE = 5 * VIDEO_PER_SECOND['720p']!;
let set: SentinelSet;
let gw: TaskGateway;

beforeAll(async () => {
  set = await startSentinelSet();
  gw = await startTaskGateway({
    env: {
      // The first Sentinel asked monitors no such master: the others are asked next.
      REDIS_SENTINELS: `${set.stranger},${set.sentinels}`,
      REDIS_SENTINEL_NAME: MASTER_NAME,
      // The host and port of REDIS_URL are not used with Sentinels: a dead address proves it.
      REDIS_URL: 'redis://127.0.0.1:9',
      // Every call asks Redis (no grant held in process), so a call answered means the new master answers.
      ADMISSION_GRANTS: 'false',
      TASK_RECONCILE_AFTER_MS: '120000',
      MAINTENANCE_EVERY_MS: '30000',
    },
  });
}, 90_000);
afterAll(async () => {
  await gw?.close();
  await set?.stop();
});

describe('Redis Sentinel failover', () => {
  it('the master killed: calls answer again within 20 s, workers resume, what replication dropped is re-driven, nothing charged twice', {
    timeout: 120_000,
  }, async () => {
    const a = await gw.account({ balance: 100 * PRICE });
    const b = await gw.account({ balance: 100 * PRICE });
    expect((await postChat(gw.url, b.key, chatRequest('gpt-sim', 'cached'))).status).toBe(200);
    let served = 0;
    let lastAnswer = '';
    const chat = async () => {
      const res = await postChat(gw.url, a.key, chatRequest('gpt-sim', 'hello'));
      lastAnswer = `${res.status} ${res.text.slice(0, 300)}`;
      expect([200, 503], res.text).toContain(res.status);
      if (res.status === 200) served++;
      return res.status;
    };
    for (let i = 0; i < 5; i++) expect(await chat()).toBe(200);

    // Tasks that reached the replica: submitted upstream, polling.
    const before: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await createVideo(gw, a.key, videoBody(`[[sim:taskRunMs=${4_000 + i * 200}]] before ${i}`));
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      before.push(res.json.id as string);
    }
    await waitUntil(
      async () => (await Promise.all(before.map((id) => taskRow(gw, id)))).every((r) => r?.stage === 'poll'),
      20_000,
      50,
    );
    await drained(gw, 10_000);

    // Replication falls behind; the jobs of these tasks live on the master alone.
    set.replication.hold();
    const lost: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await createVideo(gw, a.key, videoBody(`[[sim:taskRunMs=300]] unreplicated ${i}`));
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      lost.push(res.json.id as string);
    }
    const oldMaster = set.master.port;
    await set.master.kill();
    const killed = performance.now();

    // Calls answer again (503 meanwhile, never a 500) once the Sentinels promoted the replica.
    await waitUntil(async () => (await chat()) === 200, 20_000, 100).catch(async (err: Error) => {
      // What a slow failover looked like, for whoever reads the failure.
      const sentinelSays = await set.masterPort();
      throw new Error(
        `${err.message}: the Sentinels name port ${sentinelSays} (replica ${set.replica.port}, old master ${oldMaster}); last answer ${lastAnswer}`,
      );
    });
    const recovered = performance.now() - killed;
    console.log(`calls answered again ${Math.round(recovered)} ms after the master was killed`);
    expect(recovered).toBeLessThan(20_000);
    expect(await set.masterPort()).toBe(set.replica.port);
    expect(await set.masterPort()).not.toBe(oldMaster);
    for (let i = 0; i < 5; i++) expect(await chat()).toBe(200);

    // The key-change subscriber followed the master: a revoked key is refused at once, not after
    // its 60 s cache TTL.
    const admin = { db: gw.services.db, redis: gw.services.redis, channel: gw.services.redisKeys.keyInvalidation };
    await setKeyStatus(admin, b.userId, b.keyId, 'revoked');
    await waitUntil(
      async () => (await postChat(gw.url, b.key, chatRequest('gpt-sim', 'revoked?'))).status === 401,
      5_000,
      50,
    );

    // Workers resume: every task ends, each submitted upstream once and charged once.
    for (const id of [...before, ...lost]) expect((await waitSettled(gw, id, 60_000)).status).toBe('succeeded');
    expect(gw.sim.stats().tasks['content-tasks'].taskCreates).toBe(before.length + lost.length);
    await drained(gw, 10_000);
    const charges = await expectConsistentLedger(gw.services.db, a.userId);
    const taskIds = [...before, ...lost];
    const taskCharges = charges.filter((c) => taskIds.includes(c.request_id as string));
    expect(taskCharges.map((c) => c.request_id).sort()).toEqual([...taskIds].sort());
    expect(taskCharges.every((c) => Math.abs(c.amount_micro_usd) === PRICE)).toBe(true);
    // Each answered call has its one usage record and one charge; a refused one has neither.
    const chatRecords = (await usageRecords(gw.services.db, a.userId)).filter((r) => r.model === 'gpt-sim');
    expect(chatRecords.length).toBe(served);
    expect(charges.length).toBe(served + taskIds.length);
  });

  it('a Sentinel that knows no master by that name costs one clear log line, not one per retry', async () => {
    const lines: string[] = [];
    const log = {
      warn: (obj: { err?: string }, message: string) => void lines.push(obj.err ?? message),
      info: () => {},
    } as unknown as Logger;
    // Every Sentinel asked: one line, however many rounds.
    const config = parseConfig({ REDIS_SENTINELS: set.sentinels, REDIS_SENTINEL_NAME: 'no-such-master' });
    const lost = createRedis(config.redis, { lazyConnect: false });
    reportRedisErrors(lost, log, 'commands');
    try {
      let rounds = 0;
      lost.on('error', () => rounds++);
      await waitUntil(() => rounds >= 4, 20_000, 50);
      expect(lines).toEqual([
        "no Sentinel of REDIS_SENTINELS knows a master named 'no-such-master' (REDIS_SENTINEL_NAME); retrying",
      ]);
      expect(lost.status).not.toBe('ready');
    } finally {
      lost.disconnect();
    }
    // One Sentinel of several: the master is found through another, and that one is named once.
    lines.length = 0;
    const strangerFirst = parseConfig({
      REDIS_SENTINELS: `${set.stranger},${set.sentinels}`,
      REDIS_SENTINEL_NAME: MASTER_NAME,
    });
    const found = createRedis(strangerFirst.redis);
    reportRedisErrors(found, log, 'commands');
    try {
      await connectRedis(found);
      expect(await found.ping()).toBe('PONG');
      expect(lines).toEqual([
        `Sentinel ${set.stranger} knows no master named '${MASTER_NAME}' (REDIS_SENTINEL_NAME); the master was found through another`,
      ]);
    } finally {
      found.disconnect();
    }
  });
});

describe('the response cache behind Sentinel', () => {
  it('without CACHE_REDIS_URL lives on the master the Sentinels name; CACHE_REDIS_URL is used as given, not through them', async () => {
    const master = new Redis((await set.masterPort())!, '127.0.0.1');
    const own = await startRedisServer(await freePort());
    const ownClient = new Redis(own.port, '127.0.0.1');
    let apart: TestGateway | undefined;
    const entriesOn = (redis: Redis, at: TestGateway, userId: string) =>
      redis.zcount(at.services.redisKeys.cacheAccount(userId), Date.now(), '+inf');
    try {
      // The gateway's own Redis, found through the Sentinels (after the failover above: the promoted replica).
      const shared = await gw.account({ balance: 5_000_000, key: { cache_ttl_seconds: 600 } });
      const body = ask('gpt-sim', 'cached behind Sentinel');
      expect((await chat(gw, shared.key, body)).cache).toBe('MISS');
      await waitUntil(async () => (await entriesOn(master, gw, shared.userId)) === 1, 10_000);
      expect((await chat(gw, shared.key, body)).cache).toBe('HIT');

      // A cache Redis of its own, beside the same Sentinels: the entry is there, and not on the master.
      apart = await startTestGateway({
        env: {
          REDIS_SENTINELS: set.sentinels,
          REDIS_SENTINEL_NAME: MASTER_NAME,
          REDIS_URL: 'redis://127.0.0.1:9',
          CACHE_REDIS_URL: `redis://127.0.0.1:${own.port}`,
        },
      });
      const alone = await apart.account({ balance: 5_000_000, key: { cache_ttl_seconds: 600 } });
      expect((await chat(apart, alone.key, body)).cache).toBe('MISS');
      await waitUntil(async () => (await entriesOn(ownClient, apart!, alone.userId)) === 1, 10_000);
      expect((await chat(apart, alone.key, body)).cache).toBe('HIT');
      expect(await entriesOn(master, apart, alone.userId)).toBe(0);
    } finally {
      await apart?.close();
      master.disconnect();
      ownClient.disconnect();
      await own.kill();
    }
  });
});
