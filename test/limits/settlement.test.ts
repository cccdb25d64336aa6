import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupOf } from '../../shared/gateway/pipeline.js';
import { Admissions } from '../../shared/limits/admission.js';
import { connectRedis, createStepRedis } from '../../shared/redis/client.js';
import { defineScripts } from '../../shared/lifecycle/redis-scripts.js';
import type { UsageEvent } from '../../shared/usage/record.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitUntil } from '../support/http.js';
import { drained, expectConsistentLedger, usageRecords, usersBalance } from '../support/money.js';

// Settlement straight through the admissions module: what a call is charged when its reservation
// is gone by the time it ends (its process stalled past the reservation's TTL and another call took
// the money back), and that the queued record carries the charge actually made.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

function record(id: string, userId: string, keyId: string): UsageEvent {
  return {
    id,
    request_id: id,
    user_id: userId,
    api_key_id: keyId,
    model: 'gpt-sim',
    provider: 'sim',
    endpoint: 'chat/completions',
    status_code: 200,
    error_code: null,
    stream: false,
    input_tokens: 10,
    output_tokens: 10,
    cached_tokens: 0,
    usage_estimated: false,
    tags: [],
    latency_ms: 1,
    ttft_ms: 1,
    created_at: new Date().toISOString(),
  };
}

describe('settlement', () => {
  it('a call whose reservation lapsed is charged what the balance still has, and its record says so', async () => {
    const acct = await gw.account({ balance: 1_000 });
    const { services } = gw;
    const key = (await services.keyCache.lookup(acct.key))!;
    const admit = (callId: string, maxCost: number, ttlMs?: number) =>
      services.admissions.admit({
        key,
        group: groupOf(services, key),
        callId,
        maxCost,
        estimatedTokens: 1,
        now: Date.now(),
        ...(ttlMs ? { detachedReservationTtlMs: ttlMs } : {}),
      });

    // A holds 800 for 1 ms only; once it lapsed, B's admission needs the money and takes it back.
    const a = await admit('settle-a', 800, 1);
    await new Promise((r) => setTimeout(r, 20));
    const b = await admit('settle-b', 900);
    const owner = { userId: acct.userId, keyId: acct.keyId };
    expect(
      await services.admissions.finish({
        owner,
        callId: 'settle-b',
        now: Date.now(),
        cost: 700,
        admitted: b,
        actualTokens: 0,
        record: record('settle-b', acct.userId, acct.keyId),
      }),
    ).toBe(700);

    // A ends asking 800: only the 300 left can be charged.
    const charged = await services.admissions.finish({
      owner,
      callId: 'settle-a',
      now: Date.now(),
      cost: 800,
      admitted: a,
      actualTokens: 0,
      record: record('settle-a', acct.userId, acct.keyId),
    });
    expect(charged).toBe(300);

    await drained(gw);
    const records = await usageRecords(services.db, acct.userId);
    expect(Object.fromEntries(records.map((r) => [r.id, r.charged_micro_usd]))).toEqual({
      'settle-a': 300,
      'settle-b': 700,
    });
    expect(await usersBalance(services.db, acct.userId)).toBe(0);
    await expectConsistentLedger(services.db, acct.userId);
    expect(await services.balances.currentBalance(acct.userId)).toEqual({ settled: 0, pending: 0, balance: 0 });
  });

  it('a call that costs more than its reservation is charged its price from the balance; a cheaper one gives the rest back', async () => {
    const acct = await gw.account({ balance: 1_000 });
    const { services } = gw;
    const key = (await services.keyCache.lookup(acct.key))!;
    const admitted = await services.admissions.admit({
      key,
      group: groupOf(services, key),
      callId: 'settle-c',
      maxCost: 600,
      estimatedTokens: 1,
      now: Date.now(),
    });
    const owner = { userId: acct.userId, keyId: acct.keyId };
    // Asking more than was reserved charges the price, the excess from the balance (issue 27, C1;
    // the call meter flags such records, test/security/c1-uncapped-output.test.ts).
    expect(
      await services.admissions.finish({
        owner,
        callId: 'settle-c',
        now: Date.now(),
        cost: 650,
        admitted,
        actualTokens: 0,
        record: record('settle-c', acct.userId, acct.keyId),
      }),
    ).toBe(650);
    const cheaper = await services.admissions.admit({
      key,
      group: groupOf(services, key),
      callId: 'settle-d',
      maxCost: 300,
      estimatedTokens: 1,
      now: Date.now(),
    });
    expect(
      await services.admissions.finish({
        owner,
        callId: 'settle-d',
        now: Date.now(),
        cost: 120,
        admitted: cheaper,
        actualTokens: 0,
        record: record('settle-d', acct.userId, acct.keyId),
      }),
    ).toBe(120);
    await drained(gw);
    const records = await usageRecords(services.db, acct.userId);
    expect(Object.fromEntries(records.map((r) => [r.id, r.charged_micro_usd]))).toEqual({
      'settle-c': 650,
      'settle-d': 120,
    });
    expect(await services.balances.currentBalance(acct.userId)).toEqual({ settled: 230, pending: 0, balance: 230 });
    await expectConsistentLedger(services.db, acct.userId);
  });

  it('a settlement reported sent is carried out, once, although its connection drops before the reply', async () => {
    const acct = await gw.account({ balance: 1_000 });
    const { services } = gw;
    const key = (await services.keyCache.lookup(acct.key))!;
    // A step connection of its own (made as the gateway makes it), to break without disturbing the harness.
    const conn = createStepRedis(services.config.redis);
    conn.on('error', () => {});
    defineScripts(conn);
    await connectRedis(conn);
    const admissions = new Admissions(
      services.redis,
      services.redisKeys,
      services.balances,
      services.quotas,
      services.config.billing,
      conn,
    );
    try {
      const admitted = await admissions.admit({
        key,
        group: groupOf(services, key),
        callId: 'sent-a',
        maxCost: 600,
        estimatedTokens: 1,
        now: Date.now(),
      });
      const owner = { userId: acct.userId, keyId: acct.keyId };
      const finished = admissions.finish({
        owner,
        callId: 'sent-a',
        now: Date.now(),
        cost: 250,
        admitted,
        actualTokens: 0,
        record: record('sent-a', acct.userId, acct.keyId),
      });
      finished.catch(() => {});
      await admissions.sent();
      // What a killed process (or a broken link) leaves: the bytes written reach Redis, no reply comes back.
      conn.stream.destroy();
      await expect(finished).rejects.toThrow();
      // Reconnected, the client must not send the settlement again: Redis already ran it.
      await waitUntil(() => conn.status === 'ready', 3_000);
      await new Promise((r) => setTimeout(r, 100));
      await drained(gw);
      expect((await usageRecords(services.db, acct.userId)).map((r) => r.charged_micro_usd)).toEqual([250]);
      expect(await services.balances.currentBalance(acct.userId)).toEqual({ settled: 750, pending: 0, balance: 750 });
      // The spendable balance admissions read (Redis): charged once, nothing left reserved.
      expect(Number(await services.redis.get(services.redisKeys.balance(acct.userId)))).toBe(750);
      expect(await services.redis.hlen(services.redisKeys.reservations(acct.userId))).toBe(0);
      await expectConsistentLedger(services.db, acct.userId);
    } finally {
      admissions.renewer.stop();
      conn.disconnect();
    }
  });
});
