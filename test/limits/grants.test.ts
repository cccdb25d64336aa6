import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupOf } from '../../shared/gateway/pipeline.js';
import { STEP } from '../../shared/limits/scripts.js';
import { stepOpCounts } from '../../bench/lib/redis-trace.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat, waitUntil } from '../support/http.js';
import { drained, expectConsistentLedger, usageRecords, usersBalance } from '../support/money.js';
import { spawnApi, startApisBeside, type ApiProcess, type ApisBeside } from '../support/processes.js';
import { monitorRedis } from '../support/redis-monitor.js';

// Grants: far from its limits a key's calls are admitted without a Redis decision of their own;
// near them, every call is decided in Redis exactly as before (shared/limits/grants.ts).
const STEP_SHA = createHash('sha1').update(STEP).digest('hex');
const FAR = { rpm_limit: 1_000_000, tpm_limit: 1_000_000_000 };
const REQUEST = chatRequest('gpt-sim', 'hello there', { max_tokens: 16 });

let gw: TestGateway;
let beside: ApisBeside;
let apis: ApiProcess[] = [];
beforeAll(async () => {
  gw = await startTestGateway();
  beside = await startApisBeside(gw, 2, { RESERVATION_TTL_MS: '2000' });
  apis = beside.apis;
});
afterAll(async () => {
  await beside?.stop();
  await gw?.close();
});

/** Runs `total` calls, `concurrency` at a time, spread over the URLs → their statuses. */
async function load(urls: string[], key: string, total: number, concurrency: number): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      while (next < total) {
        next++;
        statuses.push((await postChat(urls[lane % urls.length]!, key, REQUEST)).status);
      }
    }),
  );
  return statuses;
}

/** STEP operations on Redis (this gateway's prefix only) while `work` runs, read with MONITOR. */
async function stepOps(
  work: () => Promise<unknown>,
): Promise<{ calls: number; A: number; F: number; G: number; R: number }> {
  const counts = { calls: 0, A: 0, F: 0, G: 0, R: 0 };
  const prefix = gw.env.REDIS_PREFIX!;
  const monitor = await monitorRedis(gw.env.REDIS_URL ?? 'redis://127.0.0.1:6379', ({ args }) => {
    if (args[0]?.toLowerCase() !== 'evalsha' || args[1] !== STEP_SHA || !args.some((a) => a.startsWith(prefix))) return;
    counts.calls++;
    const ops = stepOpCounts(args.slice(3));
    counts.A += ops.A;
    counts.F += ops.F;
    counts.G += ops.G;
    counts.R += ops.R;
  });
  try {
    await work();
    await new Promise((r) => setTimeout(r, 200));
  } finally {
    monitor.stop();
  }
  return counts;
}

async function grantHolds(userId: string): Promise<string[]> {
  return Object.keys(await gw.services.redis.hgetall(gw.services.redisKeys.reservations(userId))).filter((id) =>
    id.startsWith('grant_'),
  );
}

describe('grants', () => {
  it('a key far from its limits takes at most 0.05 admission decisions in Redis per chat call; charges stay exact', async () => {
    const acct = await gw.account({ balance: 1_000_000_000, key: FAR });
    const ops = await stepOps(() => load([apis[0]!.url], acct.key, 600, 8));
    expect(ops.A / 600).toBeLessThanOrEqual(0.05);
    expect(ops.G).toBeGreaterThan(0);
    expect(ops.F).toBeGreaterThanOrEqual(600);
    await drained(gw, 10_000);
    const records = await usageRecords(gw.services.db, acct.userId);
    expect(records).toHaveLength(600);
    const spent = records.reduce((sum, r) => sum + r.charged_micro_usd, 0);
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(1_000_000_000 - spent);
    await expectConsistentLedger(gw.services.db, acct.userId);
    // Idle, the grants go back: nothing is held any more and Redis's balance is the ledger's.
    await waitUntil(async () => (await grantHolds(acct.userId)).length === 0, 5_000);
    expect(Number(await gw.services.redis.get(gw.services.redisKeys.balance(acct.userId)))).toBe(1_000_000_000 - spent);
  });

  it('with concurrency limited too, grants hold slots, and calls in flight never pass the limit across two processes', async () => {
    const acct = await gw.account({ balance: 1_000_000_000, key: { ...FAR, concurrency_limit: 64 } });
    const urls = apis.map((a) => a.url);
    const warm = await stepOps(() => load(urls, acct.key, 400, 8));
    expect(warm.A / 400).toBeLessThanOrEqual(0.05);
    expect(warm.G).toBeGreaterThan(0);
    gw.sim.resetStats();
    const slow = chatRequest('gpt-sim', '[[sim:latencyMs=300]] slow', { max_tokens: 3 });
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => postChat(urls[i % 2]!, acct.key, slow)));
    expect(gw.sim.stats().maxInFlight).toBeLessThanOrEqual(64);
    expect(replies.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(8);
    expect(replies.every((r) => r.status === 200 || r.status === 429)).toBe(true);
  });

  it('a burst at the RPM limit over two API processes admits exactly the limit (plus what the window refills meanwhile)', async () => {
    const limit = 400;
    const acct = await gw.account({ balance: 1_000_000_000, key: { rpm_limit: limit } });
    const started = Date.now();
    const statuses = await load(
      apis.map((a) => a.url),
      acct.key,
      2 * limit,
      16,
    );
    const refilled = Math.ceil(((Date.now() - started) * limit) / 60_000);
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(admitted).toBeGreaterThanOrEqual(limit);
    expect(admitted).toBeLessThanOrEqual(limit + refilled);
  });

  it('a balance raced by 100 calls over two processes never goes below zero and is charged exactly what it admitted', async () => {
    const acct = await gw.account({ balance: 40_000 });
    const statuses = await load(
      apis.map((a) => a.url),
      acct.key,
      100,
      10,
    );
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200).every((s) => s === 402)).toBe(true);
    expect(admitted).toBeGreaterThan(0);
    await drained(gw, 10_000);
    const records = (await usageRecords(gw.services.db, acct.userId)).filter((r) => r.status_code === 200);
    expect(records).toHaveLength(admitted);
    const balance = await usersBalance(gw.services.db, acct.userId);
    expect(balance).toBeGreaterThanOrEqual(0);
    expect(balance).toBe(40_000 - records.reduce((sum, r) => sum + r.charged_micro_usd, 0));
    await expectConsistentLedger(gw.services.db, acct.userId);
  });

  it('a process SIGKILLed holding grants loses nothing once they lapse', async () => {
    const doomed = await spawnApi(beside.env);
    const acct = await gw.account({ balance: 1_000_000_000, key: FAR });
    await load([doomed.url], acct.key, 200, 8);
    const held = await grantHolds(acct.userId);
    expect(held.length).toBeGreaterThan(0);
    await doomed.stop('SIGKILL');
    await drained(gw, 10_000);
    const spent = (await usageRecords(gw.services.db, acct.userId)).reduce((sum, r) => sum + r.charged_micro_usd, 0);
    // Past RESERVATION_TTL_MS (2 s here), an admission that needs the money finds it back: it asks
    // for one micro-USD more than Redis's balance shows, which only the dead grants' holds cover.
    await new Promise((r) => setTimeout(r, 2_500));
    const shown = Number(await gw.services.redis.get(gw.services.redisKeys.balance(acct.userId)));
    expect(shown).toBeLessThan(1_000_000_000 - spent);
    const key = (await gw.services.keyCache.lookup(acct.key))!;
    const admitted = await gw.services.admissions.admit({
      key,
      group: groupOf(gw.services, key),
      callId: 'needs-the-money',
      maxCost: shown + 1,
      estimatedTokens: 0,
      now: Date.now(),
      detachedReservationTtlMs: 1_000,
    });
    await gw.services.admissions.finish({
      owner: { userId: acct.userId, keyId: acct.keyId },
      callId: 'needs-the-money',
      now: Date.now(),
      cost: 0,
      admitted,
      actualTokens: 0,
      record: undefined,
    });
    expect(await grantHolds(acct.userId)).toEqual([]);
    expect(Number(await gw.services.redis.get(gw.services.redisKeys.balance(acct.userId)))).toBe(1_000_000_000 - spent);
  });

  it('revoking a key with grants outstanding takes effect on every process within a second, and the grants go back', async () => {
    const acct = await gw.account({ balance: 1_000_000_000, key: FAR });
    await load(
      apis.map((a) => a.url),
      acct.key,
      200,
      8,
    );
    expect((await grantHolds(acct.userId)).length).toBeGreaterThan(0);
    await gw.services.db
      .updateTable('api_keys')
      .set({ status: 'revoked', revoked_at: new Date() })
      .where('id', '=', acct.keyId)
      .execute();
    const revokedAt = Date.now();
    await gw.services.redis.publish(gw.services.redisKeys.keyInvalidation, acct.keyId);
    const took = await waitUntil(async () => {
      const replies = await Promise.all(apis.map((a) => postChat(a.url, acct.key, REQUEST)));
      return replies.every((r) => r.status === 401);
    }, 1_000);
    expect(took).toBeLessThan(1_000);
    await waitUntil(async () => (await grantHolds(acct.userId)).length === 0, 1_000);
    expect(Date.now() - revokedAt).toBeLessThan(1_500);
  });
});
