import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestListener } from '../../api/app.js';
import { buildCatalog } from '../../shared/catalog/index.js';
import { parseConfig } from '../../shared/config.js';
import { buildServices, type RunningServices } from '../../shared/gateway/build-services.js';
import { createLogger } from '../../shared/log.js';
import { drainUsageBatch, moveLegacyUsage, usageDrained } from '../../shared/usage/drain.js';
import { testCatalog } from '../support/catalog.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';
import {
  expectConsistentLedger,
  pricedMicroUsd,
  SIM_DEFAULT_COMPLETION,
  usageRecords,
  usersBalance,
} from '../support/money.js';

// A second gateway on its own Redis prefix and with no drainer: each test drains by hand with the
// real drainUsageBatch, so a crash between the Postgres commit and the acknowledgement can be staged.
let gw: TestGateway;
let services: RunningServices;
let server: Server;
let url: string;

beforeAll(async () => {
  gw = await startTestGateway();
  // Under the harness prefix, so gw.close() deletes these keys too.
  const config = parseConfig({ ...gw.env, REDIS_PREFIX: `${gw.env.REDIS_PREFIX}replay:` });
  services = await buildServices(config, buildCatalog(testCatalog(gw.sim.url)), createLogger('silent'));
  server = createServer(createRequestListener(services)).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await services.close();
  await gw.close();
});

// "hello" → (3 + 1) + 3 prompt tokens, 16 completion tokens at gpt-sim's 2 / 8 micro-USD per token.
const COST = pricedMicroUsd({ input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 }, 7, SIM_DEFAULT_COMPLETION);
const FUNDS = 100_000;

/** The same connection, except that acknowledging fails: the drainer "dies" right after its commit. */
function crashingBeforeAck(redis: Redis): Redis {
  return new Proxy(redis, {
    get(target, prop) {
      if (prop === 'gwAckUsage') return () => Promise.reject(new Error('process killed before the acknowledgement'));
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function paidCall(): Promise<{ userId: string }> {
  const acct = await gw.account({ balance: FUNDS });
  const res = await postChat(url, acct.key, chatRequest('gpt-sim', 'hello'));
  expect(res.status, res.text).toBe(200);
  return acct;
}

async function expectChargedOnce(userId: string) {
  const records = await usageRecords(gw.services.db, userId);
  expect(records.map((r) => r.charged_micro_usd)).toEqual([COST]);
  const charges = await expectConsistentLedger(gw.services.db, userId);
  expect(charges.map((c) => [c.request_id, c.amount_micro_usd])).toEqual([[records[0]!.id, -COST]]);
  expect(await usersBalance(gw.services.db, userId)).toBe(FUNDS - COST);
}

const queue = () => services.redisKeys.usageQueue;

describe('the usage drain charges a record once', () => {
  it('a batch replayed after a crash between commit and acknowledgement moves no money again', async () => {
    const { userId } = await paidCall();

    await expect(
      drainUsageBatch(services.db, crashingBeforeAck(services.redis), services.redisKeys, 'dead', 10),
    ).rejects.toThrow(/acknowledgement/);
    await expectChargedOnce(userId);
    expect(await services.redis.llen(queue())).toBe(1); // still queued, under the dead drainer's lock
    expect(await usageDrained(services.redis, services.redisKeys)).toBe(false);
    expect(await drainUsageBatch(services.db, services.redis, services.redisKeys, 'alive', 10)).toBe(0);

    // The dead drainer's lock runs out; the next drainer replays its batch.
    await services.redis.pexpire(services.redisKeys.usageLock, 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(await drainUsageBatch(services.db, services.redis, services.redisKeys, 'alive', 10)).toBe(1);

    await expectChargedOnce(userId);
    expect(await usageDrained(services.redis, services.redisKeys)).toBe(true);
    // The replay's acknowledgement released the pending charge, once: Redis and Postgres agree.
    expect(await services.balances.currentBalance(userId)).toEqual({
      settled: FUNDS - COST,
      pending: 0,
      balance: FUNDS - COST,
    });
  });

  it.each([
    ['in one batch', 10],
    ['in separate batches', 1],
  ])('the same record queued twice is written and charged once (%s)', async (_, batch) => {
    const { userId } = await paidCall();
    const [record] = await services.redis.lrange(queue(), 0, 0);
    await services.redis.rpush(queue(), record!);
    let handled = 0;
    while (handled < 2)
      handled += await drainUsageBatch(services.db, services.redis, services.redisKeys, 'alive', batch);
    expect(handled).toBe(2);
    await expectChargedOnce(userId);
  });

  it('records Postgres refuses go to the dead-letter list and do not hold up the others', async () => {
    const { userId } = await paidCall();
    const [good] = await services.redis.lrange(queue(), 0, 0);
    await services.redis.del(queue());
    const badUuid = JSON.stringify({ ...(JSON.parse(good!) as object), id: 'poison-1', user_id: 'not-a-uuid' });
    await services.redis.rpush(queue(), '{"truncated', badUuid, good!);

    expect(await drainUsageBatch(services.db, services.redis, services.redisKeys, 'alive', 10)).toBe(3);
    await expectChargedOnce(userId);
    expect(await services.redis.lrange(services.redisKeys.usageDead, 0, -1)).toEqual(['{"truncated', badUuid]);
    expect(await usageDrained(services.redis, services.redisKeys)).toBe(true);
    expect(await services.balances.currentBalance(userId)).toEqual({
      settled: FUNDS - COST,
      pending: 0,
      balance: FUNDS - COST,
    });
  });
});

describe('records an earlier release left in its usage stream', () => {
  const stream = () => services.redisKeys.legacyUsageStream;

  /** Takes a paid call's record off the queue and puts it in the stream as the stream-based release did. */
  async function asLegacyEntry(): Promise<{ userId: string }> {
    const acct = await paidCall();
    const queued = JSON.parse((await services.redis.lpop(queue()))!) as Record<string, unknown>;
    const { charged_micro_usd: charge, ...event } = queued;
    const k = services.redisKeys;
    await services.redis.xadd(
      stream(),
      '*',
      'r',
      JSON.stringify(event),
      'c',
      String(charge),
      'u',
      k.undrained(acct.userId),
      'k',
      k.keyUndrained(String(event.api_key_id)),
    );
    return acct;
  }

  it('are moved onto the queue and charged once, and the stream is gone', async () => {
    const { userId } = await asLegacyEntry();
    expect(await moveLegacyUsage(services.redis, services.redisKeys)).toBe(1);
    expect(await services.redis.exists(stream())).toBe(0);
    expect(await drainUsageBatch(services.db, services.redis, services.redisKeys, 'alive', 10)).toBe(1);
    await expectChargedOnce(userId);
    expect(await services.balances.currentBalance(userId)).toEqual({
      settled: FUNDS - COST,
      pending: 0,
      balance: FUNDS - COST,
    });
  });

  it('stay while a drainer of that release still reads the stream, and move once it is gone', async () => {
    const { userId } = await asLegacyEntry();
    await services.redis.xgroup('CREATE', stream(), 'usage-drain', '0');
    await services.redis.xreadgroup('GROUP', 'usage-drain', 'old-drainer', 'COUNT', 1, 'STREAMS', stream(), '>');
    expect(await moveLegacyUsage(services.redis, services.redisKeys)).toBe(0);
    expect(await services.redis.xlen(stream())).toBe(1);

    // The old drainer stops reading (its process is gone): its unacknowledged entry moves.
    await services.redis.xgroup('DELCONSUMER', stream(), 'usage-drain', 'old-drainer');
    expect(await moveLegacyUsage(services.redis, services.redisKeys)).toBe(1);
    expect(await drainUsageBatch(services.db, services.redis, services.redisKeys, 'alive', 10)).toBe(1);
    await expectChargedOnce(userId);
  });
});
