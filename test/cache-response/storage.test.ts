import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signIn } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitUntil } from '../support/http.js';
import { systemClock } from '../../shared/clock.js';
import { connectRedis, createRedis } from '../../shared/redis/client.js';
import { redisKeys } from '../../shared/redis/keys.js';
import { entryCost, ResponseCacheStore } from '../../shared/response-cache/store.js';
import { metricsRegistry } from '../../shared/telemetry/metrics.js';
import { ask, cacheCatalog, cacheEntries, chat, upstreamCalls, waitForEntries } from './support.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

// The cache's own memory bound, its purge, and a Redis that stops answering (its counters as the
// API's METRICS_PORT serves them: metrics-port.test.ts).
const BUDGET = 4_000;
const CACHED = { cache_ttl_seconds: 600 };
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    catalog: cacheCatalog,
    sim: { apiKey: 'sim-upstream-secret' },
    env: { CACHE_MAX_BYTES: String(BUDGET) },
  });
});
afterAll(() => gw?.close());

/** The process's Prometheus registry, as METRICS_PORT serves it (the gateway runs in this process). */
const metrics = (): Promise<string> => metricsRegistry.metrics();
const counter = (text: string, name: string, labels: string) =>
  Number(new RegExp(`^${name}\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
/** Answers offered to the cache so far (whatever became of them): a miss's store is done when this moves. */
async function offered(): Promise<number> {
  const text = await metrics();
  return ['stored', 'over_budget', 'too_large', 'failed']
    .map((r) => counter(text, 'gateway_response_cache_stores_total', `result="${r}"`))
    .reduce((a, b) => a + b, 0);
}

describe('the byte budget', () => {
  it('stops storing beyond CACHE_MAX_BYTES, keeps what it holds, and stores again once purged', async () => {
    const acct = await gw.account({ balance: 5_000_000, key: CACHED });
    let stored = 0;
    let refused = false;
    for (let i = 0; i < 20 && !refused; i++) {
      const before = await offered();
      const overBefore = counter(await metrics(), 'gateway_response_cache_stores_total', 'result="over_budget"');
      expect((await chat(gw, acct.key, ask('gpt-sim', `budget ${i}`))).cache).toBe('MISS');
      await waitUntil(async () => (await offered()) > before, 10_000);
      refused = counter(await metrics(), 'gateway_response_cache_stores_total', 'result="over_budget"') > overBefore;
      if (!refused) stored++;
    }
    expect(refused).toBe(true);
    expect(stored).toBeGreaterThan(0);
    expect(await cacheEntries(gw, acct.userId)).toBe(stored);
    expect(await gw.services.responseCache.usedBytes()).toBeLessThanOrEqual(BUDGET);
    // What it holds still answers; what it refused goes upstream again.
    expect((await chat(gw, acct.key, ask('gpt-sim', 'budget 0'))).cache).toBe('HIT');
    expect((await chat(gw, acct.key, ask('gpt-sim', `budget ${stored}`))).cache).toBe('MISS');

    const s = await signIn(gw, acct.email);
    expect((await api(gw, 'DELETE', '/cache', { token: s.token })).json.data).toEqual({ purged: stored });
    expect(await gw.services.responseCache.usedBytes()).toBe(0);
    expect((await chat(gw, acct.key, ask('gpt-sim', 'after the purge'))).cache).toBe('MISS');
    await waitForEntries(gw, acct.userId, 1);
  });

  it('gives back the bytes of entries Redis expired as it stores', async () => {
    const keys = redisKeys(`gwt:budget-${Date.now()}:`);
    const redis = createRedis({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
    const { defineScripts } = await import('../../shared/lifecycle/redis-scripts.js');
    defineScripts(redis);
    await connectRedis(redis);
    let now = Date.now();
    const store = new ResponseCacheStore(redis, keys, 2_400, { now: () => now }, pino({ level: 'silent' }));
    try {
      const value = Buffer.alloc(300, 'x');
      expect(await store.put('acct', 'key', 'one', value, 1)).toBe(true);
      expect(await store.put('acct', 'key', 'two', value, 1)).toBe(true);
      expect(await store.put('acct', 'key', 'three', value, 1)).toBe(false);
      now += 1_500; // both entries' TTLs have run out
      expect(await store.put('acct', 'key', 'three', value, 60)).toBe(true);
      expect(await store.usedBytes()).toBe(entryCost(300, keys.cacheEntry('acct', 'three').length));
      expect(await store.put('acct', 'key', 'big', Buffer.alloc(1024 * 1024 + 1), 60)).toBe(false);
      expect(await store.purgeKey('key')).toBeGreaterThanOrEqual(1);
      expect(await store.usedBytes()).toBe(0);
    } finally {
      const names = await redis.keys(`${keys.cacheBytes.slice(0, -'rc:bytes'.length)}*`);
      if (names.length) await redis.del(...names);
      redis.disconnect();
    }
  });
});

describe('a cache Redis that stops answering', () => {
  let proxy: TcpProxy;
  let down: TestGateway;

  beforeAll(async () => {
    const target = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    down = await startTestGateway({
      catalog: cacheCatalog,
      sim: { apiKey: 'sim-upstream-secret' },
      env: { CACHE_REDIS_URL: `redis://127.0.0.1:${proxy.port}` },
    });
  });
  afterAll(async () => {
    await down?.close();
    await proxy?.close();
  });

  it('answers every call as a miss while it is down, never failing one, and hits again once it is back', async () => {
    const acct = await down.account({ balance: 5_000_000, key: CACHED });
    const body = ask('gpt-sim', 'through the proxy');
    expect((await chat(down, acct.key, body)).cache).toBe('MISS');
    await waitForEntries(down, acct.userId, 1);
    expect((await chat(down, acct.key, body)).cache).toBe('HIT');

    proxy.cut();
    const before = upstreamCalls(down, 'sim-model');
    for (const extra of [{}, { stream: true }, {}]) {
      const reply = await chat(down, acct.key, { ...body, ...extra });
      expect(reply.status).toBe(200);
      expect(reply.cache).toBe('MISS');
    }
    expect(upstreamCalls(down, 'sim-model')).toBe(before + 3);

    proxy.restore();
    await waitUntil(async () => (await chat(down, acct.key, body)).cache === 'HIT', 15_000, 100);
  });

  it('logs the failure once until Redis answers again', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const closed = createRedis({ url: 'redis://127.0.0.1:1' });
    closed.on('error', () => {});
    const store = new ResponseCacheStore(closed, redisKeys('gwt:closed:'), 1_000, systemClock, pino(sink));
    try {
      for (let i = 0; i < 3; i++) expect(await store.get('acct', `d${i}`)).toBeUndefined();
      expect(await store.put('acct', 'key', 'd', Buffer.from('x'), 60)).toBe(false);
      expect(lines.filter((l) => l.includes('response cache')).length).toBe(1);
    } finally {
      closed.disconnect();
    }
  });
});
