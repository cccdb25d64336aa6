import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startUpstreamSim, type UpstreamSim } from '../../tools/upstream-sim/index.js';
import { chatBody, postChat, readUntilEnd, sseData } from './helpers.js';

let sim: UpstreamSim;

beforeAll(async () => {
  sim = await startUpstreamSim();
});
afterAll(() => sim.close());

const contentOf = (data: unknown[]): string =>
  data
    .map((event) => (event as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content ?? '')
    .join('');

describe('injected faults', () => {
  it('error500 answers 500 with an OpenAI server_error', async () => {
    const res = await postChat(sim.url, chatBody('[[sim:fault=error500]]'));
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: { type: 'server_error', param: null } });
  });

  it('error429 answers 429 with Retry-After and rate_limit_exceeded', async () => {
    const res = await postChat(sim.url, chatBody('[[sim:fault=error429,retryAfterSeconds=7]]'));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(await res.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
  });

  it('disconnect drops a stream after faultAfterChunks content chunks', async () => {
    const res = await postChat(sim.url, chatBody('[[sim:fault=disconnect,faultAfterChunks=2]]', { stream: true }));
    expect(res.status).toBe(200);
    const { text, error } = await readUntilEnd(res);
    expect(error).toBeInstanceOf(Error);
    expect(text).toContain('tok2 ');
    expect(text).not.toContain('tok3 ');
    expect(text).not.toContain('[DONE]');
  });

  it('disconnect drops a non-stream request before answering', async () => {
    await expect(postChat(sim.url, chatBody('[[sim:fault=disconnect]]'))).rejects.toThrow();
  });

  it('hang never answers and is released when the client gives up', async () => {
    const request = postChat(sim.url, chatBody('[[sim:fault=hang]]'), { signal: AbortSignal.timeout(300) });
    await vi.waitFor(() => expect(sim.stats().inFlight).toBe(1));
    await expect(request).rejects.toMatchObject({ name: 'TimeoutError' });
    await vi.waitFor(() => expect(sim.stats().inFlight).toBe(0));
  });

  it('errorMidStream ends the stream with an error event after the content chunks', async () => {
    const res = await postChat(sim.url, chatBody('[[sim:fault=errorMidStream]]', { stream: true }));
    const { text, error } = await readUntilEnd(res);
    expect(error).toBeUndefined();
    const data = sseData(text);
    expect(contentOf(data)).toBe('tok1 tok2 tok3 ');
    expect(data.at(-1)).toEqual({
      error: { message: 'upstream exploded', type: 'server_error', code: 'internal_error' },
    });
    expect(data).not.toContain('[DONE]');
  });

  it('a fault in an earlier user message is ignored: only the last one counts', async () => {
    const body = chatBody('fine now', {
      messages: [
        { role: 'user', content: '[[sim:fault=error500]]' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'fine now' },
      ],
    });
    expect((await postChat(sim.url, body)).status).toBe(200);
  });

  it('rejects a malformed directive with a 400', async () => {
    const res = await postChat(sim.url, chatBody('[[sim:fault=explode]]'));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'messages' } });
  });
});

describe('timing directives', () => {
  it('latencyMs delays the response headers', async () => {
    const started = performance.now();
    const res = await postChat(sim.url, chatBody('[[sim:latencyMs=80]]'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    expect(res.status).toBe(200);
  });

  it('chunkDelayMs spaces the stream chunks out', async () => {
    const started = performance.now();
    const res = await postChat(sim.url, chatBody('[[sim:chunkDelayMs=20,outputTokens=3]]', { stream: true }));
    const data = sseData(await res.text());
    // role, 3 tokens, finish, [DONE]: five gaps between six events
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(contentOf(data)).toBe('tok1 tok2 tok3 ');
  });

  it('outputTokens sets the completion length when max_tokens is absent', async () => {
    const res = await postChat(sim.url, chatBody('[[sim:outputTokens=3]]'));
    const body = (await res.json()) as { choices: { message: { content: string }; finish_reason: string }[] };
    expect(body.choices[0]).toMatchObject({ message: { content: 'tok1 tok2 tok3 ' }, finish_reason: 'stop' });
  });
});
