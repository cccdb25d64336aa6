// The batch discount's arithmetic (compounding with the account's and group's discounts, one
// rounding up per line) and the upload's line counter (bytes and lines counted as they stream,
// refused past a limit), on their own.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { countLines } from '../../shared/batches/line-counter.js';
import { tokenCost, withBatchDiscount } from '../../shared/billing/pricing.js';
import { buildCatalog } from '../../shared/catalog/index.js';
import { testCatalog } from '../support/catalog.js';

function model(pricing: Record<string, number>) {
  const doc = {
    ...testCatalog('http://127.0.0.1:9'),
    models: [{ id: 'm', endpoints: ['chat/completions'], routes: [{ provider: 'sim' }], pricing }],
    groups: [],
  };
  return buildCatalog(doc).models.get('m')!;
}

describe('the batch discount', () => {
  it('defaults to 0 and is refused outside 0-100', () => {
    expect(model({ input_per_mtok: 1 }).pricing.batch_discount_percent).toBe(0);
    expect(() => model({ input_per_mtok: 1, batch_discount_percent: 101 })).toThrow();
  });

  it('compounds with the account and group discounts and rounds up once', () => {
    const m = model({ input_per_mtok: 3_000_000, output_per_mtok: 7_000_000, batch_discount_percent: 50 });
    const usage = { inputTokens: 101, outputTokens: 33, cachedTokens: 0 };
    // 101 × 3 + 33 × 7 = 534 µUSD full price.
    expect(tokenCost(m, usage)).toBe(534);
    expect(tokenCost(m, usage, withBatchDiscount({ accountPercent: 0, groupPercent: 0 }, m))).toBe(267);
    // 534 × 0.9 × 0.8 × 0.5 = 192.24 → 193.
    expect(tokenCost(m, usage, withBatchDiscount({ accountPercent: 10, groupPercent: 20 }, m))).toBe(193);
  });
});

async function count(text: string, maxBytes: number, maxLines: number) {
  const counter = countLines(maxBytes, maxLines);
  const sink = new Writable({ write: (_c, _e, done) => done() });
  await pipeline(Readable.from([Buffer.from(text)]), counter, sink);
  return { bytes: counter.bytes, lines: counter.lines() };
}

describe('the upload line counter', () => {
  it('counts bytes and lines, a last line without a newline included', async () => {
    expect(await count('a\nb\nc\n', 100, 10)).toEqual({ bytes: 6, lines: 3 });
    expect(await count('a\nb\nc', 100, 10)).toEqual({ bytes: 5, lines: 3 });
  });

  it('fails the stream past the byte or the line limit, naming the file', async () => {
    await expect(count('x'.repeat(11), 10, 10)).rejects.toMatchObject({ code: 'body_too_large', param: 'file' });
    await expect(count('a\nb\nc\n', 100, 2)).rejects.toMatchObject({ code: 'invalid_request', param: 'file' });
    await expect(count('a\nb\nc', 100, 2)).rejects.toMatchObject({ param: 'file' });
    expect(await count('a\nb\n', 100, 2)).toEqual({ bytes: 4, lines: 2 });
  });
});
