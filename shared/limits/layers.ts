import type { Group } from '../catalog/index.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import type { RedisKeys } from '../redis/keys.js';

export type Layer = 'key' | 'user' | 'group';
export type Dimension = 'requests' | 'tokens';

/** One layer's RPM and TPM (null = not limited), whose GCRA states share one Redis key. */
export interface RateLayer {
  k: string;
  layer: Layer;
  rpm: number | null;
  tpm: number | null;
}

export interface ConcurrencyRule {
  k: string;
  limit: number;
  layer: Layer;
}

export interface LimitRules {
  /** Layers that limit requests or tokens, in the order key, user, group. */
  readonly rates: readonly RateLayer[];
  /** Layers whose TPM is set (corrected to the actual tokens when the call ends). */
  readonly tpm: readonly RateLayer[];
  readonly concurrency: readonly ConcurrencyRule[];
  readonly concurrencyKeys: readonly string[];
}

const NONE: readonly never[] = Object.freeze([]);
const NO_RULES: LimitRules = Object.freeze({ rates: NONE, tpm: NONE, concurrency: NONE, concurrencyKeys: NONE });

const unlimited = (l: ApiKeyContext['limits']) => l.rpm === null && l.tpm === null && l.concurrency === null;

/** The three layers of a call, each with whichever of RPM, TPM and concurrency is set (null = none). */
export function limitRules(keys: RedisKeys, key: ApiKeyContext, group: Group): LimitRules {
  // Most keys have no limit at any layer: nothing to build for them.
  if (unlimited(key.limits) && unlimited(key.owner.limits) && unlimited(group.limits)) return NO_RULES;
  const layers: { layer: Layer; id: string; limits: ApiKeyContext['limits'] }[] = [
    { layer: 'key', id: key.id, limits: key.limits },
    { layer: 'user', id: key.userId, limits: key.owner.limits },
    { layer: 'group', id: group.id, limits: group.limits },
  ];
  const rates: RateLayer[] = [];
  const concurrency: ConcurrencyRule[] = [];
  for (const { layer, id, limits } of layers) {
    if (limits.rpm !== null || limits.tpm !== null)
      rates.push({ k: keys.rate(layer, id), layer, rpm: limits.rpm, tpm: limits.tpm });
    if (limits.concurrency !== null)
      concurrency.push({ k: keys.concurrency(layer, id), limit: limits.concurrency, layer });
  }
  return { rates, tpm: rates.filter((r) => r.tpm !== null), concurrency, concurrencyKeys: concurrency.map((c) => c.k) };
}

/**
 * limitRules, built once per key context and group: the key cache hands out the same context object
 * until the key changes, and a changed key (or a reloaded catalog's group) is a new object.
 */
export class LimitRulesCache {
  private readonly cache = new WeakMap<ApiKeyContext, { group: Group; rules: LimitRules }>();

  constructor(private readonly keys: RedisKeys) {}

  rules(key: ApiKeyContext, group: Group): LimitRules {
    const hit = this.cache.get(key);
    if (hit && hit.group === group) return hit.rules;
    const rules = limitRules(this.keys, key, group);
    this.cache.set(key, { group, rules });
    return rules;
  }
}
