import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICING, surfacesCatalog } from '../surfaces/catalog.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// Issue 27, L8: the check that sends a body re-serialised when a priced field appears twice searched
// the bytes for the plain name, so `"max_tok\u0065ns"` slipped past it: JSON.parse keeps the last
// value, an upstream whose parser keeps the first could read another (a bigger answer, another model).

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway({
    catalog: (url) => {
      const base = surfacesCatalog(url);
      // Models whose upstream takes the same name: nothing but the check itself makes the gateway re-serialise.
      const same = [
        {
          id: 'gpt-same',
          endpoints: ['chat/completions'],
          routes: [{ provider: 'sim-openai' }],
          pricing: PRICING,
          max_output_tokens: 1000,
        },
        {
          id: 'claude-same',
          endpoints: ['chat/completions'],
          routes: [{ provider: 'sim-anthropic' }],
          pricing: PRICING,
          max_output_tokens: 1000,
        },
      ];
      return { ...base, models: [...base.models, ...same] };
    },
  });
  key = (await gw.account({ balance: 10_000_000 })).key;
});
afterAll(() => gw.close());

async function send(
  path: string,
  headers: Record<string, string>,
  raw: string,
): Promise<{ status: number; upstream: string }> {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: raw,
  });
  await res.arrayBuffer();
  return { status: res.status, upstream: gw.sim.stats().lastRequestText ?? '' };
}

/**
 * How often each key name appears in the bytes; throws on an escaped one. A name that appears once,
 * unescaped, reads the same to a parser keeping the first value as to one keeping the last.
 */
function keyCounts(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/"((?:[^"\\]|\\.)*)"\s*:/g)) {
    const name = JSON.parse(`"${m[1]}"`) as string;
    if (name !== m[1]) throw new Error(`an escaped key reached the upstream: ${m[1]}`);
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

describe('L8: escaped duplicate keys', () => {
  it('chat completions: a body whose escaped key repeats a priced field is sent as the gateway read it', async () => {
    const raw =
      '{"model":"gpt-same","max_tokens":4000,"messages":[{"role":"user","content":"hi"}],"max_tok\\u0065ns":5}';
    const { status, upstream } = await send('/v1/chat/completions', { authorization: `Bearer ${key}` }, raw);
    expect(status).toBe(200);
    expect(upstream).not.toBe(raw);
    expect(keyCounts(upstream).max_tokens).toBe(1);
    expect(JSON.parse(upstream)).toMatchObject({ max_tokens: 5 });
  });

  it('chat completions: an escaped second model name does not reach the upstream', async () => {
    const raw =
      '{"model":"gpt-sim","messages":[{"role":"user","content":"hi"}],"max_tokens":5,"m\\u006fdel":"gpt-same"}';
    const { status, upstream } = await send('/v1/chat/completions', { authorization: `Bearer ${key}` }, raw);
    expect(status).toBe(200);
    expect(keyCounts(upstream).model).toBe(1);
    expect(JSON.parse(upstream)).toMatchObject({ model: 'gpt-same', max_tokens: 5 });
  });

  it('Messages: the same', async () => {
    const raw =
      '{"model":"claude-same","max_tokens":4000,"messages":[{"role":"user","content":"hi"}],"max_t\\u006fkens":5}';
    const { status, upstream } = await send(
      '/native-messages/v1/messages',
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      raw,
    );
    expect(status).toBe(200);
    expect(keyCounts(upstream).max_tokens).toBe(1);
    expect(JSON.parse(upstream)).toMatchObject({ max_tokens: 5 });
  });

  it('generateContent: the same, inside generationConfig', async () => {
    const raw =
      '{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"maxOutputTokens":4000,"maxOutputT\\u006fkens":5}}';
    const { status, upstream } = await send(
      '/v1beta/models/gemini-sim:generateContent',
      { 'x-goog-api-key': key },
      raw,
    );
    expect(status).toBe(200);
    expect(keyCounts(upstream).maxOutputTokens).toBe(1);
    expect(JSON.parse(upstream)).toMatchObject({ generationConfig: { maxOutputTokens: 5 } });
  });
});
