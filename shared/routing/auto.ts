import type { CatalogModel } from '../catalog/index.js';
import type { AutoStrategy } from './model-spec.js';

/**
 * The list price `auto:cost` compares: input plus output per million tokens, plus a per-request
 * price counted as if a call were a million tokens' worth (it is paid on every call).
 */
export function listPrice(model: CatalogModel): number {
  if (model.free) return 0;
  const p = model.pricing;
  return p.input_per_mtok + p.output_per_mtok + p.per_request;
}

/** Time to first token of a model with no samples in the window, ms: ranked after measured ones. */
export const UNMEASURED_TTFT_MS = 60_000;

/**
 * Orders the eligible models for an automatic choice, best first. Ties (and unmeasured latencies)
 * fall back to the id, so every process picks the same model for the same state.
 */
export function rankAuto(
  models: readonly CatalogModel[],
  strategy: AutoStrategy,
  ttftMs: ReadonlyMap<string, number> = new Map(),
): CatalogModel[] {
  const key = (m: CatalogModel): number => {
    if (strategy === 'quality') return -(m.quality ?? 0);
    if (strategy === 'cost') return listPrice(m);
    return ttftMs.get(m.id) ?? UNMEASURED_TTFT_MS;
  };
  return [...models].sort((a, b) => key(a) - key(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
