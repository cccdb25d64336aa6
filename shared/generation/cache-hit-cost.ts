import { tokenCost, type TokenUsage } from '../billing/pricing.js';
import type { CatalogModel } from '../catalog/index.js';
import { discountOf } from '../gateway/pipeline.js';
import type { GatewayServices } from '../gateway/services.js';
import type { ApiKeyContext } from '../keys/api-key.js';

/**
 * What a cache hit costs: the model's `pricing.cache_hit_percent` (0-100, default 0 = free) of what
 * the original call's usage costs today, with the key's discounts, rounded to the micro-USD.
 */
export function hitCost(services: GatewayServices, key: ApiKeyContext, model: CatalogModel, usage: TokenUsage): number {
  const percent = model.pricing.cache_hit_percent;
  if (percent === 0) return 0;
  return Math.round((tokenCost(model, usage, discountOf(services, key)) * percent) / 100);
}
