// C2: a client that read a whole stream and hung up just before its end paid for one output token —
// message_start's `output_tokens: 1` was taken for the count. A stream that ends early (client gone,
// upstream cut or failed) is charged at least the estimate of the text it relayed (bytes ÷ 4), on
// every surface, translated or not, the private protocol included, and recorded as estimated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitUntil } from '../support/http.js';
import { pricedMicroUsd, usersBalance, waitForUsage } from '../support/money.js';
import { PRICING, surfacesCatalog } from '../surfaces/catalog.js';
import { frames } from '../surfaces/protocol-clients.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ catalog: surfacesCatalog });
});
afterAll(() => gw?.close());

const TOKENS = 400;
/** The simulator's prompt count for one user message (3 per request, 3 per message, its words). */
const simPrompt = (text: string) => 6 + text.split(/\s+/).filter(Boolean).length;

type Client = 'chat' | 'messages' | 'content' | 'private';

interface Case {
  name: string;
  client: Client;
  model: 'gpt-sim' | 'claude-sim' | 'gemini-sim';
  /** Text deltas the client reads before it hangs up (generateContent's last frame is its end). */
  deltas: number;
}

const CASES: Case[] = [
  { name: 'chat completions ← chat completions (passed through)', client: 'chat', model: 'gpt-sim', deltas: TOKENS },
  { name: 'Messages ← Messages (passed through)', client: 'messages', model: 'claude-sim', deltas: TOKENS },
  { name: 'chat completions ← Messages (translated)', client: 'chat', model: 'claude-sim', deltas: TOKENS },
  { name: 'Messages ← chat completions (translated)', client: 'messages', model: 'gpt-sim', deltas: TOKENS },
  {
    name: 'generateContent ← generateContent (passed through)',
    client: 'content',
    model: 'gemini-sim',
    deltas: TOKENS - 1,
  },
  { name: 'private protocol ← Messages', client: 'private', model: 'claude-sim', deltas: TOKENS },
];

function request(c: Case, key: string, text: string): { url: string; init: RequestInit } {
  const messages = [{ role: 'user', content: text }];
  let url: string;
  let body: Record<string, unknown>;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (c.client === 'chat') {
    url = `${gw.url}/v1/chat/completions`;
    headers.authorization = `Bearer ${key}`;
    body = { model: c.model, messages, max_tokens: TOKENS, stream: true };
  } else if (c.client === 'messages') {
    url = `${gw.url}/native-messages/v1/messages`;
    headers['x-api-key'] = key;
    headers['anthropic-version'] = '2023-06-01';
    body = { model: c.model, messages, max_tokens: TOKENS, stream: true };
  } else if (c.client === 'content') {
    url = `${gw.url}/native-content/v1beta/models/${c.model}:streamGenerateContent?alt=sse`;
    headers['x-goog-api-key'] = key;
    body = { contents: [{ role: 'user', parts: [{ text }] }], generationConfig: { maxOutputTokens: TOKENS } };
  } else {
    url = `${gw.url}/server/v1/call`;
    body = {
      apiKey: key,
      clientRequestId: `early-${Date.now()}`,
      model: c.model,
      stream: true,
      input: { messages, max_tokens: TOKENS },
    };
  }
  return { url, init: { method: 'POST', headers, body: JSON.stringify(body) } };
}

/** The text one frame of the client's protocol carries. */
function textOf(client: Client, frame: { event: string | undefined; data: string }): string {
  if (frame.data === '[DONE]' || frame.data === '') return '';
  const data = JSON.parse(frame.data);
  if (client === 'messages') return data.type === 'content_block_delta' ? (data.delta?.text ?? '') : '';
  if (client === 'content')
    return (data.candidates?.[0]?.content?.parts ?? []).map((p: { text?: string }) => p.text ?? '').join('');
  return data.choices?.[0]?.delta?.content ?? '';
}

/** Reads the stream until `deltas` text deltas arrived, then hangs up; returns the text received. */
async function readThenHangUp(c: Case, res: Response, abort: AbortController): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let raw = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before ${c.deltas} deltas:\n${raw.slice(-500)}`);
    raw += decoder.decode(value, { stream: true });
    const complete = frames(raw.slice(0, raw.lastIndexOf('\n\n') + 2));
    const texts = complete.map((f) => textOf(c.client, f)).filter((t) => t !== '');
    if (texts.length >= c.deltas) {
      abort.abort();
      return texts.join('');
    }
  }
}

describe('a client that reads a whole stream and hangs up before its end', () => {
  for (const c of CASES) {
    it(`is charged at least the estimate of the text relayed: ${c.name}`, async () => {
      const funds = 10_000_000;
      const acct = await gw.account({ balance: funds, key: c.client === 'private' ? { kind: 'private' } : {} });
      const text = `tell me everything [[sim:outputTokens=${TOKENS},fault=stallBeforeEnd]]`;
      const { url, init } = request(c, acct.key, text);
      const abort = new AbortController();
      const res = await fetch(url, { ...init, signal: abort.signal });
      expect(res.status).toBe(200);
      const received = await readThenHangUp(c, res, abort);
      expect(received.startsWith('tok1 tok2 ')).toBe(true);

      // Hanging up lets the upstream go, and the call is settled as the client's.
      await waitUntil(() => gw.sim.stats().inFlight === 0, 3_000, 5);
      const [record] = await waitForUsage(gw, acct.userId, 1);
      const relayedEstimate = Math.ceil(Buffer.byteLength(received) / 4);
      // The prompt as the upstream counted it when it said (Messages' message_start, generateContent's
      // running usage), else the request body's bytes ÷ 4.
      const reportsPrompt = c.model !== 'gpt-sim';
      const input = reportsPrompt ? simPrompt(text) : Math.ceil(Buffer.byteLength(init.body as string) / 4);
      expect(record).toMatchObject({
        status_code: 499,
        error_code: 'client_closed',
        stream: true,
        usage_estimated: true,
        cached_tokens: 0,
      });
      expect(record!.input_tokens).toBe(input);
      expect(record!.output_tokens).toBeGreaterThanOrEqual(relayedEstimate);
      const charged = pricedMicroUsd(PRICING, record!.input_tokens, record!.output_tokens);
      expect(record!.charged_micro_usd).toBe(charged);
      expect(charged).toBeGreaterThanOrEqual(pricedMicroUsd(PRICING, record!.input_tokens, relayedEstimate));
      expect(await usersBalance(gw.services.db, acct.userId)).toBe(funds - charged);
    });
  }
});

describe('a stream the upstream ends early', () => {
  for (const [fault, code] of [
    ['disconnect', 'upstream_stream_interrupted'],
    ['errorMidStream', 'upstream_error'],
  ] as const) {
    it(`is charged at least the estimate of the text relayed, not message_start's count (${fault})`, async () => {
      const acct = await gw.account({ balance: 10_000_000 });
      const after = 200;
      const text = `go on [[sim:outputTokens=${TOKENS},fault=${fault},faultAfterChunks=${after}]]`;
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${acct.key}` },
        body: JSON.stringify({
          model: 'claude-sim',
          messages: [{ role: 'user', content: text }],
          max_tokens: TOKENS,
          stream: true,
        }),
      });
      const body = await res.text();
      const received = frames(body)
        .map((f) => textOf('chat', f))
        .join('');
      expect(received.split(' ').filter(Boolean)).toHaveLength(after);
      const [record] = await waitForUsage(gw, acct.userId, 1);
      expect(record).toMatchObject({ error_code: code, usage_estimated: true, input_tokens: simPrompt(text) });
      expect(record!.output_tokens).toBeGreaterThanOrEqual(Math.ceil(Buffer.byteLength(received) / 4));
    });
  }
});
