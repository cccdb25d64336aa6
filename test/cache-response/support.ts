import type { Json } from '../console/helpers.js';
import type { TestGateway } from '../support/gateway.js';
import { testCatalog } from '../support/catalog.js';
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

/** The test catalog with what the cache's tests add: a model whose hits cost half, an embeddings model. */
export function cacheCatalog(simUrl: string) {
  const catalog = testCatalog(simUrl);
  (catalog.models as unknown[]).push(
    {
      id: 'half-sim',
      endpoints: ['chat/completions'],
      routes: [{ provider: 'sim', upstream_model: 'half-model' }],
      pricing: { input_per_mtok: 2_000_000, output_per_mtok: 8_000_000, cache_hit_percent: 50 },
      max_output_tokens: 1000,
    },
    {
      id: 'embed-sim',
      endpoints: ['embeddings'],
      routes: [{ provider: 'sim', upstream_model: 'up-embed' }],
      pricing: { input_per_mtok: 1_000_000 },
      max_output_tokens: 1,
    },
  );
  return catalog;
}

export interface ChatReply {
  status: number;
  cache: string | null;
  json: Json;
  text: string;
}

/** One chat completion over HTTP (whole, or streamed and read to its end). */
export async function chat(
  gw: TestGateway,
  key: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<ChatReply> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, cache: res.headers.get('x-service-cache'), json, text };
}

export const ask = (model: string, content: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content }],
  ...extra,
});
