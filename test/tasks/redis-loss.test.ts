// Redis restarted empty (no persistence) while ten tasks run, with the reconciler at its production
// settings (2 minutes, every 30 s): the workers notice the loss within a second and re-drive every
// unfinished task from Postgres, so all end within 60 s, each submitted once and charged once.
// Then the same with AOF `everysec`: a restart loses nothing older than a second.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, waitUntil } from '../support/http.js';
import { startRedisServer, type RedisServer } from '../support/limits.js';
import { expectConsistentLedger } from '../support/money.js';
import { freePort } from '../support/processes.js';
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
let port: number;
let redis: RedisServer | undefined;
let gw: TaskGateway;

beforeAll(async () => {
  port = await freePort();
  redis = await startRedisServer(port);
  gw = await startTaskGateway({
    env: { REDIS_URL: `redis://127.0.0.1:${port}`, TASK_RECONCILE_AFTER_MS: '120000', MAINTENANCE_EVERY_MS: '30000' },
  });
});
afterAll(async () => {
  redis ??= await startRedisServer(port);
  await gw?.close();
  await redis.kill();
});

describe('a Redis loss', () => {
  it('is noticed in seconds: ten tasks in flight all end within 60 s, each submitted and charged once', {
    timeout: 90_000,
  }, async () => {
    const a = await gw.account({ balance: 100 * PRICE });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await createVideo(gw, a.key, videoBody(`[[sim:taskRunMs=${3_000 + i * 200}]] in flight ${i}`));
      expect(res.status).toBe(200);
      ids.push(res.json.id as string);
    }
    await waitUntil(
      async () => (await Promise.all(ids.map((id) => taskRow(gw, id)))).every((r) => r?.stage === 'poll'),
      15_000,
      50,
    );

    await redis!.kill();
    redis = undefined;
    await sleep(300);
    redis = await startRedisServer(port);
    const restarted = performance.now();
    for (const id of ids) expect((await waitSettled(gw, id, 60_000)).status).toBe('succeeded');
    const elapsed = performance.now() - restarted;
    console.log(`all 10 tasks terminal ${Math.round(elapsed)} ms after Redis answered again`);
    expect(elapsed).toBeLessThan(60_000);
    expect(gw.sim.stats().tasks['content-tasks'].taskCreates).toBe(10);
    const charges = await expectConsistentLedger(gw.services.db, a.userId);
    expect(charges.map((c) => c.request_id).sort()).toEqual([...ids].sort());
  });
});

describe('Redis with AOF everysec', () => {
  it('restarted (killed, not shut down) keeps every write older than a second', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gw-aof-'));
    const aofPort = await freePort();
    try {
      let server = await startRedisServer(aofPort, dir);
      const client = new Redis(aofPort, '127.0.0.1', { lazyConnect: true });
      await client.connect();
      for (let i = 0; i < 1_000; i++) await client.set(`k${i}`, String(i));
      await sleep(1_500); // fsync everysec has run since the last write
      await server.kill(); // SIGKILL: no shutdown save
      client.disconnect();
      server = await startRedisServer(aofPort, dir);
      const again = new Redis(aofPort, '127.0.0.1');
      expect(await again.dbsize()).toBe(1_000);
      expect(await again.get('k999')).toBe('999');
      again.disconnect();
      await server.kill();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
