import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { readEvents, sseData, type Message } from '../support/http.js';
import { drained, pricedMicroUsd, simPromptTokens, usageRecords } from '../support/money.js';

let gw: TestGateway;
let acct: { userId: string; key: string };
const GPT_SIM = { input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 };

beforeAll(async () => {
  gw = await startTestGateway();
  acct = await gw.account({ balance: 10_000_000 });
});
afterAll(() => gw.close());

function openStream(text: string, extra: Record<string, unknown> = {}, requestId?: string): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${acct.key}`,
      ...(requestId ? { 'x-request-id': requestId } : {}),
    },
    body: JSON.stringify({ model: 'gpt-sim', messages: [{ role: 'user', content: text }], stream: true, ...extra }),
  });
}

type Chunk = {
  choices: { delta?: { content?: string }; finish_reason?: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
};

async function recordOf(requestId: string) {
  await drained(gw);
  const row = (await usageRecords(gw.services.db, acct.userId)).find((r) => r.request_id === requestId);
  if (!row) throw new Error(`no usage record for ${requestId}`);
  return row;
}

describe('relaying', () => {
  it('forwards chunks as the upstream produces them', async () => {
    const start = performance.now();
    const res = await openStream('[[sim:chunkDelayMs=100]] count', { max_tokens: 10 });
    const { events } = await readEvents(res);
    const firstContent = events.find((e) => e.data.includes('"content":"tok1 "'));
    const last = events.at(-1)!;
    expect(last.data).toBe('[DONE]');
    // 13 gaps of 100 ms upstream: the first token is due at ~100 ms, the end at ~1300 ms.
    expect(last.at - start).toBeGreaterThan(1_150);
    // Relative bounds: on two busy cores the first token may come late, but never with the rest.
    expect(firstContent!.at - start).toBeLessThan((last.at - start) / 2);
    expect(last.at - firstContent!.at).toBeGreaterThan(800);
  });

  it('ends a successful stream with exactly one data: [DONE], last', async () => {
    const res = await openStream('hello');
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    expect(text.match(/data: \[DONE\]/g)).toHaveLength(1);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});

describe('usage', () => {
  const messages: Message[] = [{ role: 'user', content: 'three little words' }];
  const prompt = simPromptTokens(messages);

  it.each([
    { includeUsage: false, onFinish: false },
    { includeUsage: true, onFinish: false },
    { includeUsage: false, onFinish: true },
    { includeUsage: true, onFinish: true },
  ])(
    'include_usage=$includeUsage, usage on the finish chunk=$onFinish: shown only when asked, always charged',
    async ({ includeUsage, onFinish }) => {
      const id = `stream-usage-${includeUsage}-${onFinish}`;
      const text = `${messages[0]!.content}${onFinish ? ' [[sim:usageInLastChoiceChunk=true]]' : ''}`;
      const promptTokens = prompt + (onFinish ? 1 : 0);
      const res = await openStream(text, includeUsage ? { stream_options: { include_usage: true } } : {}, id);
      const data = sseData(await res.text());
      expect(data.at(-1)).toBe('[DONE]');
      const chunks = data.slice(0, -1) as Chunk[];
      expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe(
        Array.from({ length: 16 }, (_, i) => `tok${i + 1} `).join(''),
      );
      const withUsage = chunks.filter((c) => c.usage);
      if (includeUsage) {
        expect(withUsage).toHaveLength(1);
        expect(withUsage[0]!.usage).toMatchObject({ prompt_tokens: promptTokens, completion_tokens: 16 });
        expect(withUsage[0]).toBe(chunks.at(-1)); // the last chunk, as OpenAI sends it
        expect(withUsage[0]!.choices.length).toBe(onFinish ? 1 : 0);
      } else {
        expect(withUsage).toHaveLength(0);
        expect(chunks.every((c) => c.choices.length === 1)).toBe(true); // the empty-choices usage chunk is dropped
        expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
      }
      const row = await recordOf(id);
      expect(row).toMatchObject({
        status_code: 200,
        error_code: null,
        stream: true,
        usage_estimated: false,
        input_tokens: promptTokens,
        output_tokens: 16,
      });
      expect(row.charged_micro_usd).toBe(pricedMicroUsd(GPT_SIM, promptTokens, 16));
    },
  );
});

describe('an upstream that fails mid-stream', () => {
  it('disconnect: the client gets an error event and no [DONE]', async () => {
    const res = await openStream('[[sim:fault=disconnect,faultAfterChunks=3]]', {}, 'mid-disconnect');
    const { text, error } = await readEvents(res);
    expect(error).toBeUndefined(); // the gateway ends the response cleanly
    expect(text).toContain('tok3 ');
    expect(text).not.toContain('[DONE]');
    const last = sseData(text).at(-1) as { error: { code: string; type: string } };
    expect(last.error).toMatchObject({ code: 'upstream_stream_interrupted' });
    const row = await recordOf('mid-disconnect');
    expect(row).toMatchObject({ status_code: 200, error_code: 'upstream_stream_interrupted', usage_estimated: true });
  });

  it('error event: relayed to the client, no [DONE]', async () => {
    const res = await openStream('[[sim:fault=errorMidStream,faultAfterChunks=2]]', {}, 'mid-error');
    const text = await res.text();
    expect(text).toContain('tok2 ');
    expect(text).not.toContain('[DONE]');
    expect(sseData(text).at(-1)).toHaveProperty('error');
    const row = await recordOf('mid-error');
    expect(row).toMatchObject({ status_code: 200, error_code: 'upstream_error', usage_estimated: true });
  });

  it.each(['disconnect', 'errorMidStream'])('%s: the official client throws while iterating', async (fault) => {
    const client = new OpenAI({ apiKey: acct.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'gpt-sim',
      messages: [{ role: 'user', content: `[[sim:fault=${fault}]]` }],
      stream: true,
    });
    let text = '';
    const iterate = async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    };
    await expect(iterate()).rejects.toBeInstanceOf(OpenAI.APIError);
    expect(text).toBe('tok1 tok2 tok3 ');
  });
});
