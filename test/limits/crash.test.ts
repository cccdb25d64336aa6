import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat, readEvents, sleep } from '../support/http.js';
import { errorOf } from '../support/limits.js';
import {
  drained,
  expectConsistentLedger,
  o200kPromptTokens,
  pricedMicroUsd,
  simPromptTokens,
  usageRecords,
  usersBalance,
} from '../support/money.js';
import { spawnApi, writeCatalogFile, type ApiProcess } from '../support/processes.js';

// A gateway process killed with SIGKILL cannot release what its calls hold: the concurrency leases
// and money reservations expire on their own (the TTLs, renewed every TTL/3 while the call runs).
const LEASE_TTL_MS = 1_500;
const RESERVATION_TTL_MS = 2_000;
const SLACK_MS = 1_000;
const TTL_ENV = { LEASE_TTL_MS: String(LEASE_TTL_MS), RESERVATION_TTL_MS: String(RESERVATION_TTL_MS) };

let gw: TestGateway;
let catalog: { file: string; remove(): Promise<void> };
let doomed: ApiProcess | undefined;
beforeAll(async () => {
  // Every call runs to its max_tokens (the stream below to its 100 tokens).
  gw = await startTestGateway({ env: TTL_ENV, sim: { defaults: { naturalLength: false } } });
  catalog = await writeCatalogFile(gw.sim.url);
});
afterAll(async () => {
  await doomed?.stop('SIGKILL');
  await gw.close();
  await catalog.remove();
});

const GPT_SIM = { input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 };
// 100 tokens at 100 ms: a 10 s stream, killed after a few chunks.
const STREAM_REQUEST = chatRequest('gpt-sim', '[[sim:chunkDelayMs=100]] tell a long story', {
  stream: true,
  max_tokens: 100,
});
const STREAM = JSON.stringify(STREAM_REQUEST);
// The prompt's token bound (o200k) + max_tokens, at 2 and 8 micro-USD a token.
const RESERVATION = 2 * o200kPromptTokens(STREAM_REQUEST.messages as { role: string; content: string }[]) + 8 * 100;
const QUICK = chatRequest('gpt-sim', 'after the crash', { max_tokens: 5 });
const QUICK_COST = pricedMicroUsd(GPT_SIM, simPromptTokens(QUICK.messages as { role: string; content: string }[]), 5);

async function startStream(url: string, key: string): Promise<void> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: STREAM,
  });
  expect(res.status).toBe(200);
  // Two chunks in: the call is admitted and streaming. The rest of the body is left unread; the
  // process dies under it.
  const { events } = await readEvents(res, (e) => e.length >= 2);
  expect(events.length).toBeGreaterThanOrEqual(2);
}

/** Polls until a call is admitted; returns ms since `from`. Refused polls consume nothing. */
async function admittedAfter(key: string, from: number, refusedStatus: number, timeoutMs: number): Promise<number> {
  for (;;) {
    const res = await postChat(gw.url, key, QUICK);
    if (res.status === 200) return performance.now() - from;
    expect(res.status, res.text).toBe(refusedStatus);
    if (performance.now() - from > timeoutMs) throw new Error(`still refused after ${timeoutMs} ms: ${res.text}`);
    await sleep(50);
  }
}

describe('a gateway process killed with SIGKILL mid-stream', () => {
  it('its leases and reservations are released within their TTL, later calls are admitted, and the killed calls are not charged', async () => {
    expect(QUICK_COST).toBeLessThan(RESERVATION);
    // A: money for exactly the two streams' reservations. B: plenty of money, two leases.
    const a = await gw.account({ balance: 2 * RESERVATION, key: { concurrency_limit: 2 } });
    const b = await gw.account({ balance: 10_000_000, key: { concurrency_limit: 2 } });
    doomed = await spawnApi({
      DATABASE_URL: gw.env.DATABASE_URL!,
      REDIS_PREFIX: gw.env.REDIS_PREFIX!,
      CATALOG_FILE: catalog.file,
      DATABASE_POOL_SIZE: '2',
      ...TTL_ENV,
    });
    await Promise.all([
      startStream(doomed.url, a.key),
      startStream(doomed.url, a.key),
      startStream(doomed.url, b.key),
      startStream(doomed.url, b.key),
    ]);
    expect(gw.sim.stats().inFlight).toBe(4);
    // Let the renewer run at least once (every TTL/3), so expiry is measured from a renewal.
    await sleep(600);

    const killedAt = performance.now();
    await doomed.stop('SIGKILL');

    // Right away, against the surviving gateway (same database, same Redis prefix): refused.
    const aNow = await postChat(gw.url, a.key, QUICK);
    expect(aNow.status, aNow.text).toBe(402);
    expect(errorOf(aNow).code).toBe('insufficient_balance');
    const bNow = await postChat(gw.url, b.key, QUICK);
    expect(bNow.status, bNow.text).toBe(429);
    expect(errorOf(bNow).message).toMatch(/concurrency/);
    expect(performance.now() - killedAt).toBeLessThan(500);

    // Admitted again once the holds expire: leases first, then reservations.
    const [bAfter, aAfter] = await Promise.all([
      admittedAfter(b.key, killedAt, 429, LEASE_TTL_MS + SLACK_MS),
      admittedAfter(a.key, killedAt, 402, RESERVATION_TTL_MS + SLACK_MS),
    ]);
    expect(bAfter).toBeLessThanOrEqual(LEASE_TTL_MS + SLACK_MS);
    expect(aAfter).toBeLessThanOrEqual(RESERVATION_TTL_MS + SLACK_MS);
    // ...and not before the last renewal could have expired (the renewer runs every TTL/3).
    expect(bAfter).toBeGreaterThan(LEASE_TTL_MS - LEASE_TTL_MS / 3 - 100);
    expect(aAfter).toBeGreaterThan(RESERVATION_TTL_MS - RESERVATION_TTL_MS / 3 - 100);

    // Both of B's leases are free again: two slow calls run side by side.
    const both = await Promise.all(
      [0, 1].map(() => postChat(gw.url, b.key, chatRequest('gpt-sim', '[[sim:latencyMs=200]] x', { max_tokens: 1 }))),
    );
    expect(both.map((r) => r.status)).toEqual([200, 200]);

    // Money: the killed calls were never settled, so (by the policy) they cost nothing; A paid
    // only for the call made after the crash.
    await drained(gw);
    expect(await gw.services.redis.hlen(gw.services.redisKeys.reservations(a.userId))).toBe(0);
    const served = (await usageRecords(gw.services.db, a.userId)).filter((r) => r.status_code === 200);
    expect(served.map((r) => r.charged_micro_usd)).toEqual([QUICK_COST]);
    expect(await usersBalance(gw.services.db, a.userId)).toBe(2 * RESERVATION - QUICK_COST);
    expect((await gw.services.balances.currentBalance(a.userId))?.balance).toBe(2 * RESERVATION - QUICK_COST);
    expect(await expectConsistentLedger(gw.services.db, a.userId)).toHaveLength(1);
  });
});
