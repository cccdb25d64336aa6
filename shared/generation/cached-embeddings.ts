import type { TokenUsage } from '../billing/pricing.js';
import type { CatalogModel } from '../catalog/index.js';
import type { GatewayServices } from '../gateway/services.js';
import type { CallMeter } from './call-meter.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import type { RoutingPlan } from '../routing/plan.js';
import { hitCost } from './cache-hit-cost.js';
import { embeddingsCacheKey } from '../response-cache/key.js';
import { countCacheResult, type CacheStatus } from '../response-cache/metrics.js';
import { cacheTtlOf } from '../response-cache/ttl.js';

/** One cached embeddings answer: the body as the surface answered it, and the usage it was charged for. */
export interface CachedEmbeddings {
  v: 1;
  model: string;
  body: string;
  usage: TokenUsage;
  estimated: boolean;
}

export interface EmbeddingsCacheState {
  status: CacheStatus;
  ttlSeconds: number;
  digest: string | undefined;
  hit: { entry: CachedEmbeddings; model: CatalogModel } | undefined;
}

/** The cache's part of an embeddings call, after steps 1-4 (as for text calls: cached-text.ts). */
export async function lookupEmbeddings(
  services: GatewayServices,
  key: ApiKeyContext,
  plan: RoutingPlan,
  call: { surface: string; model: string; body: Record<string, unknown> },
  headerTtl: number | undefined,
): Promise<EmbeddingsCacheState> {
  const ttlSeconds = cacheTtlOf(headerTtl, plan.cacheTtlSeconds, key.cacheTtlSeconds);
  const state: EmbeddingsCacheState = { status: 'BYPASS', ttlSeconds, digest: undefined, hit: undefined };
  if (ttlSeconds > 0) {
    state.status = 'MISS';
    state.digest = embeddingsCacheKey(key.userId, call.surface, call.model, call.body);
    const bytes = await services.responseCache.get(key.userId, state.digest);
    const entry = bytes && parse(bytes);
    const model = entry ? plan.models.find((m) => m.id === entry.model) : undefined;
    if (entry && model) {
      state.status = 'HIT';
      state.hit = { entry, model };
    }
  }
  countCacheResult(state.hit?.model.id ?? plan.models[0]!.id, state.status);
  return state;
}

/**
 * A hit: admitted as a request (no tokens toward TPM), charged the model's `cache_hit_percent`,
 * recorded with `cache_hit`; resolves with the body to answer once the settlement is written.
 */
export async function embeddingsHit(
  services: GatewayServices,
  key: ApiKeyContext,
  meter: CallMeter,
  hit: { entry: CachedEmbeddings; model: CatalogModel },
  limitHeaders: (headers: Record<string, string>) => void,
): Promise<{ body: string; settled: Promise<number> }> {
  const { entry, model } = hit;
  meter.model = model;
  const cost = hitCost(services, key, model, entry.usage);
  limitHeaders(await meter.admit(model, cost, 0));
  const settled = meter.finish({
    statusCode: 200,
    usage: entry.usage,
    usageEstimated: entry.estimated,
    fixedCost: cost,
    cacheHit: true,
  });
  await meter.sent();
  return { body: entry.body, settled };
}

/** A miss's answer, stored for the TTL the call was given. */
export function fillEmbeddings(
  services: GatewayServices,
  key: ApiKeyContext,
  state: EmbeddingsCacheState,
  model: CatalogModel,
  body: string,
  usage: TokenUsage,
  estimated: boolean,
): Promise<boolean> {
  if (state.digest === undefined) return Promise.resolve(false);
  const entry: CachedEmbeddings = { v: 1, model: model.id, body, usage, estimated };
  return services.responseCache.put(
    key.userId,
    key.id,
    state.digest,
    Buffer.from(JSON.stringify(entry)),
    state.ttlSeconds,
  );
}

function parse(bytes: Buffer): CachedEmbeddings | undefined {
  try {
    const entry = JSON.parse(bytes.toString('utf8')) as CachedEmbeddings;
    return entry.v === 1 && typeof entry.body === 'string' ? entry : undefined;
  } catch {
    return undefined;
  }
}
