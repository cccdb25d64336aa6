import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { postChat } from '../support/http.js';

// What the upstream receives: the client's bytes when nothing needs to change, the gateway's own
// reading of the body otherwise (another model name upstream, usage to ask for, a duplicated field).
let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway();
  key = (await gw.account({ balance: 10_000_000 })).key;
});
afterAll(() => gw.close());

async function send(raw: string): Promise<{ status: number; upstream: string }> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: raw,
  });
  await res.arrayBuffer();
  return { status: res.status, upstream: gw.sim.stats().lastRequestText ?? '' };
}

describe('request forwarding', () => {
  it('passes the body byte for byte when the model name and fields need no change', async () => {
    const raw =
      '{ "messages" : [ {"role":"user","content":"hi \\u00e9t\\u00e9"} ],\n  "model":"free-sim", "max_tokens": 5, "temperature": 0.25 }';
    const { status, upstream } = await send(raw);
    expect(status).toBe(200);
    expect(upstream).toBe(raw);
  });

  it('sends the upstream model name when the route names one', async () => {
    const res = await postChat(gw.url, key, {
      model: 'gpt-sim',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 5,
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(gw.sim.stats().lastRequestText!)).toEqual({
      model: 'sim-model',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 5,
    });
  });

  it('asks a stream for usage when the client did not', async () => {
    const { status, upstream } = await send(
      '{"model":"free-sim","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":false}}',
    );
    expect(status).toBe(200);
    expect(JSON.parse(upstream)).toMatchObject({
      model: 'free-sim',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('re-serialises a body with a priced field twice, so the upstream reads what the gateway priced', async () => {
    // JSON.parse keeps the last max_tokens; a parser keeping the first would let 900 tokens out on a price for 5.
    const { status, upstream } = await send(
      '{"model":"free-sim","max_tokens":900,"messages":[{"role":"user","content":"hi"}],"max_tokens":5}',
    );
    expect(status).toBe(200);
    expect(upstream.match(/"max_tokens"/g)).toHaveLength(1);
    expect(JSON.parse(upstream)).toMatchObject({ max_tokens: 5 });
  });
});
