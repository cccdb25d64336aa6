import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstreamSim, type UpstreamSim } from '../../tools/upstream-sim/index.js';
import { chatBody, postChat } from './helpers.js';

let sim: UpstreamSim;
let client: OpenAI;

beforeAll(async () => {
  sim = await startUpstreamSim({ port: 0 });
  client = new OpenAI({ apiKey: 'x', baseURL: `${sim.url}/v1`, maxRetries: 0 });
});
afterAll(() => sim.close());

const tokens = (n: number): string => Array.from({ length: n }, (_, i) => `tok${i + 1} `).join('');

describe('chat completions through the official client', () => {
  it('answers a plain call with deterministic content and usage', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-sim',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Say hello to   the world' },
      ],
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-sim');
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: tokens(16), refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ]);
    // (3 + 3 words) + (3 + 5 words) + 3
    expect(completion.usage).toEqual({
      prompt_tokens: 17,
      completion_tokens: 16,
      total_tokens: 33,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('stops at max_tokens with finish_reason length and counts text parts', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-sim',
      max_tokens: 4,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'one two' },
            { type: 'text', text: 'three' },
          ],
        },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe(tokens(4));
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage?.prompt_tokens).toBe(3 + 3 + 3);
  });

  it('streams role, one chunk per token, finish, then a usage chunk', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-sim',
      messages: [{ role: 'user', content: 'stream please' }],
      max_completion_tokens: 5,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks).toHaveLength(1 + 5 + 1 + 1);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    expect(
      chunks
        .slice(1, 6)
        .map((c) => c.choices[0]?.delta.content)
        .join(''),
    ).toBe(tokens(5));
    expect(chunks[6]?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'length' });
    expect(chunks.slice(0, 7).every((c) => c.usage === null && c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[7]?.choices).toEqual([]);
    expect(chunks[7]?.usage).toMatchObject({ prompt_tokens: 3 + 2 + 3, completion_tokens: 5, total_tokens: 13 });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  });

  it('puts usage on the finish chunk when usageInLastChoiceChunk is set', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-sim',
      messages: [{ role: 'user', content: '[[sim:usageInLastChoiceChunk=true,outputTokens=2]]' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1);
    expect(chunks).toHaveLength(1 + 2 + 1);
    expect(last?.choices[0]?.finish_reason).toBe('stop');
    expect(last?.usage).toMatchObject({ completion_tokens: 2, prompt_tokens: 3 + 1 + 3 });
  });

  it('omits usage from chunks when include_usage is not asked for', async () => {
    const res = await postChat(sim.url, chatBody('hi', { stream: true, max_tokens: 1 }));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const text = await res.text();
    expect(text).not.toContain('"usage"');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});

describe('request validation', () => {
  it('rejects invalid JSON in the OpenAI error format', async () => {
    const res = await postChat(sim.url, '{not json');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: null, code: null });
    expect(body.error.message).toEqual(expect.any(String));
  });

  it.each(['model', 'messages'])('names the missing %s parameter', async (param) => {
    const body = chatBody('hi');
    delete body[param];
    const res = await postChat(sim.url, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { param, type: 'invalid_request_error' } });
  });

  it('answers unknown paths with a 404 OpenAI error', async () => {
    const res = await fetch(`${sim.url}/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('accepts /chat/completions without the /v1 prefix', async () => {
    const res = await fetch(`${sim.url}/chat/completions`, { method: 'POST', body: JSON.stringify(chatBody('hi')) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ object: 'chat.completion', model: 'sim-model' });
  });

  it('requires the API key when one is configured', async () => {
    const locked = await startUpstreamSim({ apiKey: 'secret' });
    try {
      const missing = await postChat(locked.url, chatBody('hi'));
      const wrong = await postChat(locked.url, chatBody('hi'), { headers: { authorization: 'Bearer nope' } });
      const right = await postChat(locked.url, chatBody('hi'), { headers: { authorization: 'Bearer secret' } });
      expect(missing.status).toBe(401);
      expect(await wrong.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
      expect(right.status).toBe(200);
    } finally {
      await locked.close();
    }
  });
});
