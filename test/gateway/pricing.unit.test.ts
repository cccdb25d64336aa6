import { describe, expect, it } from 'vitest';
import { tokenCost } from '../../shared/billing/pricing.js';
import { buildCatalog, type CatalogModel } from '../../shared/catalog/index.js';
import { testCatalog } from '../support/catalog.js';
import { pricedMicroUsd } from '../support/money.js';

// The simulator always reports cached_tokens 0, so cached pricing is checked on tokenCost itself.
function model(pricing: Record<string, number>, extra: Record<string, unknown> = {}): CatalogModel {
  const base = testCatalog('http://127.0.0.1:9');
  const doc = {
    ...base,
    models: [{ id: 'm', endpoints: ['chat/completions'], routes: [{ provider: 'sim' }], pricing, ...extra }],
    groups: [],
  };
  return buildCatalog(doc).models.get('m')!;
}

const usage = (inputTokens: number, outputTokens: number, cachedTokens = 0) => ({
  inputTokens,
  outputTokens,
  cachedTokens,
});

describe('tokenCost', () => {
  it('prices cached input tokens at the cached rate and the rest at the input rate', () => {
    const m = model({ input_per_mtok: 2_000_000, cached_input_per_mtok: 500_000, output_per_mtok: 8_000_000 });
    // 400 × 2 + 600 × 0.5 + 10 × 8
    expect(tokenCost(m, usage(1_000, 10, 600))).toBe(1_180);
    expect(tokenCost(m, usage(1_000, 10, 0))).toBe(2_080);
  });

  it('never counts more cached tokens than input tokens', () => {
    const m = model({ input_per_mtok: 2_000_000, cached_input_per_mtok: 500_000, output_per_mtok: 0 });
    expect(tokenCost(m, usage(100, 0, 5_000))).toBe(50);
  });

  it('uses the input rate for cached tokens when the model has no cached price', () => {
    const m = model({ input_per_mtok: 3_000_000, output_per_mtok: 0 });
    expect(tokenCost(m, usage(100, 0, 60))).toBe(300);
  });

  it('rounds the whole call up once, cached part included', () => {
    // 7 × 1.000001 + 3 × 0.333333 + 2 × 0.5 = 7.000007 + 0.999999 + 1 = 9.000006 → 10
    const m = model({ input_per_mtok: 1_000_001, cached_input_per_mtok: 333_333, output_per_mtok: 500_000 });
    expect(tokenCost(m, usage(10, 2, 3))).toBe(10);
    // exactly whole: no extra micro-USD
    expect(tokenCost(model({ input_per_mtok: 250_000, output_per_mtok: 0 }), usage(8, 0))).toBe(2);
    // a fraction of one micro-USD is still one
    expect(tokenCost(model({ input_per_mtok: 1, output_per_mtok: 0 }), usage(1, 0))).toBe(1);
  });

  it('adds the per-request price once and charges nothing for a free model or no tokens', () => {
    expect(tokenCost(model({ input_per_mtok: 1_500_000, output_per_mtok: 0, per_request: 40 }), usage(3, 0))).toBe(45);
    expect(
      tokenCost(model({ input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 }, { free: true }), usage(1_000, 1_000)),
    ).toBe(0);
    expect(tokenCost(model({ input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 }), usage(0, 0))).toBe(0);
  });

  it('agrees with the independent arithmetic of the charging tests', () => {
    let seed = 42;
    const rand = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let i = 0; i < 500; i++) {
      const price = { input_per_mtok: rand(5_000_000), output_per_mtok: rand(20_000_000), per_request: rand(3) };
      const [input, output] = [rand(200_000), rand(50_000)];
      expect(tokenCost(model(price), usage(input, output))).toBe(pricedMicroUsd(price, input, output));
    }
  });
});
