import type { CatalogModel } from '../catalog/index.js';
import type { VariantPrice } from '../catalog/schema.js';
import type { TokenUsage } from '../protocols/canonical/types.js';

// Declared beside the protocols' usage, which it is read from (billableUsage); priced here.
export type { TokenUsage } from '../protocols/canonical/types.js';

/**
 * Percent off: the account's (set by the operator) and the key's group's (set in the catalog);
 * for a batch line also the model's `pricing.batch_discount_percent`.
 */
export interface Discount {
  accountPercent: number;
  groupPercent: number;
  batchPercent?: number;
}

/** A batch line's discount: the call's, and the model's batch discount on top. */
export function withBatchDiscount(discount: Discount, model: CatalogModel): Discount {
  return {
    accountPercent: discount.accountPercent,
    groupPercent: discount.groupPercent,
    batchPercent: model.pricing.batch_discount_percent,
  };
}

export const NO_DISCOUNT: Discount = { accountPercent: 0, groupPercent: 0 };

const MICRO = 1_000_000;

/**
 * The one rounding rule. A price is first computed exactly in micro-USD × 10^6 ("scaled": token
 * counts × micro-USD per million tokens, plus fixed prices × 10^6); the effective discount
 * multiplies it — the discounts compound: 1 − (1 − account)(1 − group)(1 − batch) — and the result is
 * rounded up to a whole micro-USD once per call. So a call is never charged less than its
 * discounted price, and at most 1 micro-USD more.
 */
export function finalizeCost(scaled: number, discount: Discount): number {
  if (scaled <= 0) return 0;
  const batch = discount.batchPercent ?? 0;
  if (discount.accountPercent === 0 && discount.groupPercent === 0 && batch === 0) return Math.ceil(scaled / MICRO);
  // Basis points keep two-decimal percents exact; BigInt because the product exceeds 2^53.
  const keepA = BigInt(10_000 - Math.round(discount.accountPercent * 100));
  const keepG = BigInt(10_000 - Math.round(discount.groupPercent * 100));
  const keepB = BigInt(10_000 - Math.round(batch * 100));
  const numerator = BigInt(Math.round(scaled)) * keepA * keepG * keepB;
  const denominator = BigInt(MICRO) * 1_000_000_000_000n;
  return Number((numerator + denominator - 1n) / denominator);
}

/** Token usage in scaled micro-USD (see finalizeCost). */
export function scaledTokenPrice(model: CatalogModel, usage: TokenUsage): number {
  if (model.free) return 0;
  const p = model.pricing;
  const cached = Math.min(usage.cachedTokens, usage.inputTokens);
  const cachedRate = p.cached_input_per_mtok ?? p.input_per_mtok;
  return (
    (usage.inputTokens - cached) * p.input_per_mtok +
    cached * cachedRate +
    usage.outputTokens * p.output_per_mtok +
    p.per_request * MICRO
  );
}

export function tokenCost(model: CatalogModel, usage: TokenUsage, discount: Discount = NO_DISCOUNT): number {
  return finalizeCost(scaledTokenPrice(model, usage), discount);
}

/** A fixed or per-variant price (image size, video resolution); undefined when the variant has none. */
export function variantPrice(price: VariantPrice | undefined, variant: string): number | undefined {
  if (price === undefined) return undefined;
  return typeof price === 'number' ? price : price[variant];
}

/** Whether a model's price is explicitly zero (not a small amount that rounds to zero). */
export function isExplicitlyFree(model: CatalogModel): boolean {
  if (model.free) return true;
  const p = model.pricing;
  const zero = (v: VariantPrice | undefined) =>
    v === undefined || (typeof v === 'number' ? v === 0 : Object.values(v).every((x) => x === 0));
  return (
    p.input_per_mtok === 0 &&
    p.output_per_mtok === 0 &&
    (p.cached_input_per_mtok ?? 0) === 0 &&
    p.per_request === 0 &&
    zero(p.per_image) &&
    zero(p.per_second) &&
    zero(p.per_second_with_audio)
  );
}
