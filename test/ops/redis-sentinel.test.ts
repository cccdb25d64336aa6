// Redis behind Sentinel: a real master, one replica and three Sentinels. The master is killed while
// tasks run, just after asynchronous replication fell behind (the replica's link held, so the jobs
// of the last tasks never reached it). Within 20 s the gateway answers calls again through the
// promoted replica, the workers resume, the tasks whose jobs the failover dropped are re-driven from
// Postgres by the Redis-loss watcher (the reconciler stays at its production 2 minutes), and every
// task and call is charged exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.js';
import type { Logger } from '../../shared/log.js';
import { connectRedis, createRedis, reportRedisErrors } from '../../shared/redis/client.js';
import { chatRequest, postChat, waitUntil } from '../support/http.js';
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
      REDIS_SENTINELS: set.sentinels,
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
    let served = 0;
    const chat = async () => {
      const res = await postChat(gw.url, a.key, chatRequest('gpt-sim', 'hello'));
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
    await waitUntil(async () => (await chat()) === 200, 20_000, 100);
    const recovered = performance.now() - killed;
    console.log(`calls answered again ${Math.round(recovered)} ms after the master was killed`);
    expect(recovered).toBeLessThan(20_000);
    expect(await set.masterPort()).toBe(set.replica.port);
    expect(await set.masterPort()).not.toBe(oldMaster);
    for (let i = 0; i < 5; i++) expect(await chat()).toBe(200);

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
    const logged = {
      warn: (obj: { err?: string }) => void lines.push(obj.err ?? ''),
      info: () => {},
    } as unknown as Logger;
    const config = parseConfig({ REDIS_SENTINELS: set.sentinels, REDIS_SENTINEL_NAME: 'no-such-master' });
    const redis = createRedis(config.redis, { lazyConnect: false });
    reportRedisErrors(redis, logged, 'commands');
    try {
      // Several rounds of asking every Sentinel (each round ends in an error event).
      let rounds = 0;
      redis.on('error', () => rounds++);
      await waitUntil(() => rounds >= 4, 20_000, 50);
      expect(lines).toEqual([
        "no Sentinel of REDIS_SENTINELS knows a master named 'no-such-master' (REDIS_SENTINEL_NAME); retrying",
      ]);
      expect(redis.status).not.toBe('ready');
    } finally {
      redis.disconnect();
    }
    // The right name reaches the current master.
    const right = createRedis({ ...config.redis, sentinelName: MASTER_NAME }, { lazyConnect: false });
    right.on('error', () => {});
    try {
      await connectRedis(right);
      expect(await right.ping()).toBe('PONG');
    } finally {
      right.disconnect();
    }
  });
});
