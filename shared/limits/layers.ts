import type { Group } from '../catalog/index.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import type { RedisKeys } from '../redis/keys.js';

export type Layer = 'key' | 'user' | 'group';
export type Dimension = 'requests' | 'tokens';

export interface RateRule {
  k: string;
  limit: number;
  cost: number;
  layer: Layer;
  dim: Dimension;
}

export interface ConcurrencyRule {
  k: string;
  limit: number;
  layer: Layer;
}

const NO_RULES: { rates: RateRule[]; concurrency: ConcurrencyRule[] } = Object.freeze({ rates: [], concurrency: [] }) as never;

const unlimited = (l: ApiKeyContext['limits']) => l.rpm === null && l.tpm === null && l.concurrency === null;

/** The three layers of a call, each with whichever of RPM, TPM and concurrency is set (null = none). */
export function limitRules(keys: RedisKeys, key: ApiKeyContext, group: Group, estimatedTokens: number) {
  // Most keys have no limit at any layer: nothing to build for them.
  if (unlimited(key.limits) && unlimited(key.owner.limits) && unlimited(group.limits)) return NO_RULES;
  const layers: { layer: Layer; id: string; limits: ApiKeyContext['limits'] }[] = [
    { layer: 'key', id: key.id, limits: key.limits },
    { layer: 'user', id: key.userId, limits: key.owner.limits },
    { layer: 'group', id: group.id, limits: group.limits },
  ];
  const rates: RateRule[] = [];
  const concurrency: ConcurrencyRule[] = [];
  for (const { layer, id, limits } of layers) {
    if (limits.rpm !== null) rates.push({ k: keys.rate(layer, id, 'requests'), limit: limits.rpm, cost: 1, layer, dim: 'requests' });
    if (limits.tpm !== null) rates.push({ k: keys.rate(layer, id, 'tokens'), limit: limits.tpm, cost: estimatedTokens, layer, dim: 'tokens' });
    if (limits.concurrency !== null) concurrency.push({ k: keys.concurrency(layer, id), limit: limits.concurrency, layer });
  }
  return { rates, concurrency };
}
