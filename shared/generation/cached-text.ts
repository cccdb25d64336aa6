import type { TokenUsage } from '../billing/pricing.js';
import type { CatalogModel } from '../catalog/index.js';
import type { GatewayServices } from '../gateway/services.js';
import type { JsonAnswer } from './json-answer.js';
import type { Passage } from './passage.js';
import type { TextCall } from './text-call.js';
import type { TextSink } from './text-sink.js';
import { CLIENT_CODECS, CODECS } from '../protocols/codecs.js';
import type { CanonicalResponse } from '../protocols/canonical/types.js';
import { hitCost } from './cache-hit-cost.js';
import { textCacheKey } from '../response-cache/key.js';
import { countCacheResult, type CacheStatus } from '../response-cache/metrics.js';
import { canonicalUsage, replayStream } from '../response-cache/replay.js';
import { cacheTtlOf } from '../response-cache/ttl.js';

/** One cached text answer: the canonical answer (replayed in any surface's form, whole or streamed), its usage. */
export interface CachedText {
  v: 1;
  /** The catalog model that answered (a hit is priced and recorded as its call). */
  model: string;
  response: CanonicalResponse;
  usage: TokenUsage;
  estimated: boolean;
}

/** What the cache decided for a text call: its status, and for a miss where to store the answer. */
export interface TextCacheState {
  status: CacheStatus;
  ttlSeconds: number;
  digest: string | undefined;
  hit: { entry: CachedText; model: CatalogModel } | undefined;
}

/**
 * The cache's part of a text call, once steps 1-4 have passed (a revoked key, an address outside
 * the allowlist, a model outside the group never reach a lookup): the TTL (header, then preset,
 * then key), then the lookup. `n > 1` and requests the canonical form cannot carry bypass it. A
 * failing Redis makes it a miss (store.ts).
 */
export async function lookupTextCache(
  services: GatewayServices,
  call: TextCall,
  sink: TextSink,
  headerTtl: number | undefined,
): Promise<TextCacheState> {
  const ttlSeconds = cacheTtlOf(headerTtl, call.plan.cacheTtlSeconds, call.key.cacheTtlSeconds);
  const state: TextCacheState = { status: 'BYPASS', ttlSeconds, digest: undefined, hit: undefined };
  const first = call.plan.models[0]!;
  if (ttlSeconds > 0 && call.request.choices === 1) {
    state.digest = textCacheKey(call.key.userId, call.protocol, call.parsed.model, call.request.body);
  }
  if (state.digest !== undefined) {
    state.status = 'MISS';
    const bytes = await services.responseCache.get(call.key.userId, state.digest);
    const entry = bytes && parseEntry(bytes);
    // An answer of a model the plan no longer offers (the preset changed) is not served.
    const model = entry ? call.plan.models.find((m) => m.id === entry.model) : undefined;
    if (entry && model) {
      state.status = 'HIT';
      state.hit = { entry, model };
    }
  }
  countCacheResult(state.hit?.model.id ?? first.id, state.status);
  sink.cacheStatus?.(state.status);
  return state;
}

/**
 * A hit, answered: admitted like any call (rate limits count it as a request, its tokens count
 * toward no TPM limit; the balance covers its price), charged the model's `cache_hit_percent` of
 * what the original call cost, recorded with `cache_hit` and the original tokens, and answered in
 * the call's surface form, whole or as that surface's stream.
 */
export async function answerFromCache(
  services: GatewayServices,
  call: TextCall,
  sink: TextSink,
  hit: { entry: CachedText; model: CatalogModel },
): Promise<void> {
  const { entry, model } = hit;
  const meter = call.meter;
  meter.model = model;
  const cost = hitCost(services, call.key, model, entry.usage);
  sink.limitHeaders(await meter.admit(model, cost, 0));
  sink.model(model);
  const outcome = {
    statusCode: 200,
    usage: entry.usage,
    usageEstimated: entry.estimated,
    stream: call.parsed.stream,
    ttftMs: meter.elapsedMs(),
    fixedCost: cost,
    cacheHit: true,
  };
  if (call.parsed.stream) {
    const replay = replayStream(call.protocol, entry, model.id, call.parsed.clientWantsUsage);
    sink.open(() => undefined);
    sink.chunk(replay.events);
    const settled = meter.finish(outcome);
    await meter.sent();
    sink.end(replay.end);
    await settled;
    return;
  }
  const response = { ...entry.response, usage: canonicalUsage(entry.usage) };
  const parsed = CLIENT_CODECS[call.protocol].responseFromCanonical(response, model.id);
  const settled = meter.finish(outcome);
  await meter.sent();
  const delivered = sink.answer({
    body: JSON.stringify(parsed),
    parsed,
    usage: entry.usage,
    estimated: entry.estimated,
  });
  if (delivered) await delivered;
  await settled;
}

/** A whole answer of a miss, stored (unless it was content-filtered or cannot be read back). */
export function fillFromAnswer(
  services: GatewayServices,
  call: TextCall,
  state: TextCacheState,
  model: CatalogModel,
  passage: Passage,
  answer: JsonAnswer,
): Promise<boolean> {
  let response: CanonicalResponse;
  try {
    // A translated answer was already made canonical (json-answer.ts); a passed-through one is read here.
    response = answer.canonical ?? CODECS[passage.upstream].responseToCanonical(answer.parsed);
  } catch {
    return Promise.resolve(false);
  }
  return store(services, call, state, model, response, answer.usage, answer.estimated);
}

/** A streamed answer of a miss that ended cleanly, stored from its transcript (a cut stream never gets here). */
export function fillFromStream(
  services: GatewayServices,
  call: TextCall,
  state: TextCacheState,
  model: CatalogModel,
  usage: { usage: TokenUsage; estimated: boolean },
): Promise<boolean> {
  const response = call.transcript?.response(model.id);
  if (!response) return Promise.resolve(false);
  return store(services, call, state, model, response, usage.usage, usage.estimated);
}

function store(
  services: GatewayServices,
  call: TextCall,
  state: TextCacheState,
  model: CatalogModel,
  response: CanonicalResponse,
  usage: TokenUsage,
  estimated: boolean,
): Promise<boolean> {
  if (state.digest === undefined || response.stopReason === 'content_filter') return Promise.resolve(false);
  const entry: CachedText = { v: 1, model: model.id, response: { ...response, usage: undefined }, usage, estimated };
  const value = Buffer.from(JSON.stringify(entry));
  return services.responseCache.put(call.key.userId, call.key.id, state.digest, value, state.ttlSeconds);
}

function parseEntry(bytes: Buffer): CachedText | undefined {
  try {
    const entry = JSON.parse(bytes.toString('utf8')) as CachedText;
    return entry.v === 1 && typeof entry.model === 'string' ? entry : undefined;
  } catch {
    return undefined;
  }
}
