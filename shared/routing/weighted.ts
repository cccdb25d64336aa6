/** Something picked in proportion to its weight (weights ≥ 0; zero is never picked first). */
export interface Weighted {
  readonly weight: number;
}

/**
 * A weighted random order without replacement (Efraimidis–Spirakis: sort by u^(1/w)), so the
 * first item follows the weights and the rest are the fallbacks in a weighted order too.
 */
export function weightedOrder<T extends Weighted>(items: readonly T[], random: () => number = Math.random): T[] {
  if (items.length < 2) return [...items];
  const keyed = items.map((item) => ({
    item,
    key: item.weight > 0 ? Math.log(random() || Number.MIN_VALUE) / item.weight : -Infinity,
  }));
  keyed.sort((a, b) => b.key - a.key);
  return keyed.map((k) => k.item);
}

/** One pick by weight from a 32-bit hash (sticky choices: the same hash always picks the same item). */
export function pickByHash<T extends Weighted>(items: readonly T[], hash: number): T | undefined {
  const total = items.reduce((sum, item) => sum + Math.max(item.weight, 0), 0);
  if (total <= 0) return items[0];
  let point = ((hash >>> 0) / 0x1_0000_0000) * total;
  for (const item of items) {
    point -= Math.max(item.weight, 0);
    if (point < 0) return item;
  }
  return items[items.length - 1];
}
