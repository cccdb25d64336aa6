import type { CatalogModel } from '../catalog/index.js';

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Part of inputTokens that the upstream served from its prompt cache. */
  cachedTokens: number;
}

const PER_MTOK = 1_000_000;

/**
 * The one rounding rule: token prices are summed exactly in micro-USD × tokens, then divided by a
 * million and rounded up once per call, so a call is never charged less than its price and never
 * more than 1 micro-USD above it.
 */
export function tokenCost(model: CatalogModel, usage: TokenUsage): number {
  if (model.free) return 0;
  const p = model.pricing;
  const cached = Math.min(usage.cachedTokens, usage.inputTokens);
  const cachedRate = p.cached_input_per_mtok ?? p.input_per_mtok;
  const scaled = (usage.inputTokens - cached) * p.input_per_mtok + cached * cachedRate + usage.outputTokens * p.output_per_mtok;
  return Math.ceil(scaled / PER_MTOK) + p.per_request;
}

/** Whether a model's price is explicitly zero (not a small amount that rounds to zero). */
export function isExplicitlyFree(model: CatalogModel): boolean {
  const p = model.pricing;
  return model.free || (p.input_per_mtok === 0 && p.output_per_mtok === 0 && (p.cached_input_per_mtok ?? 0) === 0 && p.per_request === 0);
}
