import { Counter } from 'prom-client';
import { metricsRegistry } from '../telemetry/metrics.js';

/** HIT: answered from the cache; MISS: looked up, not found (stored when it ends cleanly); BYPASS: not looked up. */
export type CacheStatus = 'HIT' | 'MISS' | 'BYPASS';

const results = new Counter({
  name: 'gateway_response_cache_total',
  help: 'Calls that could use the response cache, by catalog model and result (hit, miss, bypass)',
  labelNames: ['model', 'result'] as const,
  registers: [metricsRegistry],
});

const RESULT: Readonly<Record<CacheStatus, string>> = { HIT: 'hit', MISS: 'miss', BYPASS: 'bypass' };

export function countCacheResult(model: string, status: CacheStatus): void {
  results.inc({ model, result: RESULT[status] });
}

/** What became of each answer offered to the cache: stored, over the byte budget, too large (> 1 MiB), or Redis failed. */
export type StoreResult = 'stored' | 'over_budget' | 'too_large' | 'failed';

const stores = new Counter({
  name: 'gateway_response_cache_stores_total',
  help: 'Answers offered to the response cache, by result (stored, over_budget, too_large, failed)',
  labelNames: ['result'] as const,
  registers: [metricsRegistry],
});

export function countCacheStore(result: StoreResult): void {
  stores.inc({ result });
}
