import type { TestGateway } from '../support/gateway.js';
import { waitUntil } from '../support/http.js';

/** The response-cache entries an account holds now (its index in Redis). */
export function cacheEntries(gw: TestGateway, userId: string): Promise<number> {
  const { redis, redisKeys } = gw.services;
  return redis.zcount(redisKeys.cacheAccount(userId), Date.now(), '+inf');
}

/** Waits until the account holds `count` entries: a miss is stored after its answer went out. */
export async function waitForEntries(gw: TestGateway, userId: string, count: number): Promise<void> {
  await waitUntil(async () => (await cacheEntries(gw, userId)) >= count, 10_000);
}

/** The simulator's requests so far, for one upstream model. */
export function upstreamCalls(gw: TestGateway, upstreamModel: string): number {
  return gw.sim.stats().byModel[upstreamModel] ?? 0;
}
