import { GoogleGenAI } from '@google/genai';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simVector } from '../../tools/upstream-sim/embeddings.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { usageRecords, usersBalance, waitForUsage } from '../support/money.js';
import { surfacesCatalog } from './catalog.js';

// Embeddings through the openai SDK (/v1/embeddings) and the genai SDK (embedContent), to both
// upstream protocols, charged per input token.
const PRICE = 1_000_000; // micro-USD per million input tokens: a token costs exactly 1 micro-USD
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    sim: { apiKey: 'sim-upstream-secret' },
    catalog: (simUrl) => {
      const catalog = surfacesCatalog(simUrl);
      catalog.models.push(
        {
          id: 'embed-openai',
          endpoints: ['embeddings'],
          routes: [{ provider: 'sim-openai', upstream_model: 'up-embed' }],
          pricing: { input_per_mtok: PRICE },
          max_output_tokens: 1,
        } as never,
        {
          id: 'embed-gemini',
          endpoints: ['embeddings'],
          routes: [{ provider: 'sim-gemini', upstream_model: 'up-gembed' }],
          pricing: { input_per_mtok: PRICE },
          max_output_tokens: 1,
        } as never,
      );
      return catalog;
    },
  });
});
afterAll(() => gw?.close());

const words = (texts: string[]) => texts.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0);

describe('embeddings', () => {
  it('openai SDK: float and base64, charged exactly what the upstream counted', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const client = new OpenAI({ apiKey: acct.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const input = ['the quick brown fox', 'jumps over the lazy dog today'];
    const floats = await client.embeddings.create({ model: 'embed-openai', input, encoding_format: 'float' });
    expect(floats.data.map((d) => d.embedding)).toEqual(input.map((t) => simVector(t)));
    expect(floats.usage).toEqual({ prompt_tokens: words(input), total_tokens: words(input) });
    // The SDK asks for base64 by default and decodes it into floats itself.
    const decoded = await client.embeddings.create({
      model: 'embed-openai',
      input: 'the quick brown fox',
      dimensions: 12,
    });
    expect(decoded.data[0]!.embedding).toEqual(simVector('the quick brown fox', 12).map((v) => Math.fround(v)));
    await waitForUsage(gw, acct.userId, 2);
    const rows = await usageRecords(gw.services.db, acct.userId);
    expect(
      rows.map((r) => [
        r.endpoint,
        r.surface,
        r.input_tokens,
        r.output_tokens,
        Number(r.charged_micro_usd),
        r.usage_estimated,
      ]),
    ).toEqual([
      ['embeddings', 'embeddings', 10, 0, 10, false],
      ['embeddings', 'embeddings', 4, 0, 4, false],
    ]);
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(1_000_000 - 14);
  });

  it('openai SDK to a generateContent upstream: translated, charged by the tokenizer count', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const client = new OpenAI({ apiKey: acct.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const input = ['hello embeddings', 'another one'];
    const res = await client.embeddings.create({ model: 'embed-gemini', input, encoding_format: 'float' });
    expect(res.data.map((d) => d.embedding)).toEqual(input.map((t) => simVector(t)));
    const tokens = input.reduce((n, t) => n + countTokens(t), 0);
    expect(res.usage.prompt_tokens).toBe(tokens);
    const [row] = await waitForUsage(gw, acct.userId, 1);
    expect(row).toMatchObject({ input_tokens: tokens, usage_estimated: true });
    expect(Number(row!.charged_micro_usd)).toBe(tokens);
  });

  it('genai SDK embedContent, to both upstream protocols', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const genai = new GoogleGenAI({ apiKey: acct.key, httpOptions: { baseUrl: `${gw.url}/native-content` } });
    for (const model of ['embed-gemini', 'embed-openai']) {
      const res = await genai.models.embedContent({ model, contents: ['first text', 'second text here'] });
      expect(res.embeddings?.map((e) => e.values)).toEqual([simVector('first text'), simVector('second text here')]);
    }
    const one = await fetch(`${gw.url}/v1beta/models/embed-gemini:embedContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': acct.key, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { parts: [{ text: 'solo' }] }, outputDimensionality: 4 }),
    });
    expect(await one.json()).toEqual({ embedding: { values: simVector('solo', 4) } });
    const rows = await waitForUsage(gw, acct.userId, 3);
    expect(rows.map((r) => r.surface).sort()).toEqual([
      'batch-embed-contents',
      'batch-embed-contents',
      'embed-content',
    ]);
    expect(rows.every((r) => Number(r.charged_micro_usd) === r.input_tokens)).toBe(true);
  });

  it('refuses bad input by name and charges nothing', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const post = (body: unknown) =>
      fetch(`${gw.url}/v1/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const [body, param] of [
      [{ model: 'embed-openai', input: '' }, 'input'],
      [{ model: 'embed-openai', input: [] }, 'input'],
      [{ model: 'embed-openai', input: [1, 2, 3] }, 'input'],
      [{ model: 'embed-openai', input: 'x', encoding_format: 'int8' }, 'encoding_format'],
      [{ model: 'gpt-sim', input: 'x' }, 'model'],
    ] as const) {
      const res = await post(body);
      const json = (await res.json()) as { error: { param: string } };
      expect([400, 404], JSON.stringify(body)).toContain(res.status);
      expect(json.error.param).toBe(param);
    }
    const batch = await fetch(`${gw.url}/v1beta/models/embed-gemini:batchEmbedContents`, {
      method: 'POST',
      headers: { 'x-goog-api-key': acct.key, 'content-type': 'application/json' },
      body: JSON.stringify({ requests: [{ model: 'models/other', content: { parts: [{ text: 'x' }] } }] }),
    });
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({
      error: { status: 'INVALID_ARGUMENT', details: [{ metadata: { field: 'requests[0].model' } }] },
    });
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(1_000_000);
  });
});
