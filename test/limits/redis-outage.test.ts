import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat, sleep } from '../support/http.js';
import { errorOf, keyUsage, startRedisServer, type RedisServer } from '../support/limits.js';
import {
  drained,
  expectConsistentLedger,
  pricedMicroUsd,
  simPromptTokens,
  usageRecords,
  usersBalance,
} from '../support/money.js';
import { freePort } from '../support/processes.js';

// The gateway runs against a Redis of this test's own, which the test kills and restarts.
let port: number;
let redis: RedisServer | undefined;
let gw: TestGateway;
beforeAll(async () => {
  port = await freePort();
  redis = await startRedisServer(port);
  gw = await startTestGateway({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
});
afterAll(async () => {
  redis ??= await startRedisServer(port); // closing the gateway cleans its Redis keys
  await gw?.close();
  await redis.kill();
});

const GPT_SIM = { input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 };
const BODY = chatRequest('gpt-sim', 'are you there', { max_tokens: 4 });
const COST = pricedMicroUsd(GPT_SIM, simPromptTokens(BODY.messages as { role: string; content: string }[]), 4);

describe('Redis unreachable', () => {
  it('answers 503 service_unavailable at once, admits nothing, and recovers by itself when Redis returns', async () => {
    const funds = 1_000_000;
    const acct = await gw.account({ balance: funds, key: { rpm_limit: 1000 } });
    const warm = await postChat(gw.url, acct.key, BODY);
    expect(warm.status).toBe(200);
    await drained(gw); // the charge is in Postgres before Redis (without persistence) goes away

    await redis!.kill();
    redis = undefined;
    gw.sim.resetStats();
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      const res = await postChat(gw.url, acct.key, BODY);
      const took = performance.now() - start;
      expect(res.status, res.text).toBe(503);
      expect(errorOf(res).code).toBe('service_unavailable');
      expect(res.headers.get('retry-after')).toBe('1');
      expect(took).toBeLessThan(1_000);
    }
    const lookup = await keyUsage(gw, acct.key);
    expect(lookup.status).toBe(503);
    // Nothing reached the upstream: no call runs without its limits and money.
    expect(gw.sim.stats().requests).toBe(0);

    await sleep(300);
    redis = await startRedisServer(port);
    const back = performance.now();
    let recovered: Awaited<ReturnType<typeof postChat>> | undefined;
    while (performance.now() - back < 5_000) {
      const res = await postChat(gw.url, acct.key, BODY);
      if (res.status === 200) {
        recovered = res;
        break;
      }
      expect(res.status, res.text).toBe(503);
      await sleep(100);
    }
    expect(recovered, 'no call succeeded within 5 s of Redis returning').toBeDefined();

    // The empty Redis reloaded the balance from Postgres, and the drain found its stream again.
    await drained(gw, 5_000);
    const served = (await usageRecords(gw.services.db, acct.userId)).filter((r) => r.status_code === 200);
    expect(served.map((r) => r.charged_micro_usd)).toEqual([COST, COST]);
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(funds - 2 * COST);
    expect((await gw.services.balances.currentBalance(acct.userId))?.balance).toBe(funds - 2 * COST);
    await expectConsistentLedger(gw.services.db, acct.userId);
    expect((await keyUsage(gw, acct.key)).status).toBe(200);
  });

  it('a Redis that stops answering (connections open, no replies): 503 within the command timeout, and nothing stays held', async () => {
    const funds = 1_000_000;
    const acct = await gw.account({ balance: funds, key: { concurrency_limit: 2 } });
    expect((await postChat(gw.url, acct.key, BODY)).status).toBe(200);
    redis!.pause();
    let took: number;
    try {
      const start = performance.now();
      const res = await postChat(gw.url, acct.key, BODY);
      took = performance.now() - start;
      expect(res.status, res.text).toBe(503);
      expect(errorOf(res).code).toBe('service_unavailable');
    } finally {
      redis!.resume();
    }
    const back = performance.now();
    for (;;) {
      const res = await postChat(gw.url, acct.key, BODY);
      if (res.status === 200) break;
      expect(res.status, res.text).toBe(503);
      expect(performance.now() - back).toBeLessThan(5_000);
      await sleep(100);
    }
    // shared/redis/client.ts: a command waits at most commandTimeout (5 s); one call must not wait longer.
    expect.soft(took, 'the 503 took longer than one command timeout').toBeLessThan(6_000);
    // The admission that timed out still ran once Redis woke up; the call it belonged to was
    // answered 503 and never ran, so nothing of it may stay reserved.
    const resv = gw.services.redisKeys.reservations(acct.userId);
    expect.soft(await gw.services.redis.hkeys(resv), 'reservations left behind by the 503').toEqual([]);
    const leases = gw.services.redisKeys.concurrency('key', acct.keyId);
    expect
      .soft(await gw.services.redis.zrange(leases, '0', '-1'), 'concurrency leases left behind by the 503')
      .toEqual([]);
    await drained(gw);
    const spendable = Number(await gw.services.redis.get(gw.services.redisKeys.balance(acct.userId)));
    expect
      .soft(spendable, 'spendable balance in Redis vs the ledger')
      .toBe((await gw.services.balances.currentBalance(acct.userId))!.balance);
  });
});
