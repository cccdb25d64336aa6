import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { usageRecords, usersBalance, waitForUsage } from '../support/money.js';
import { MODEL_OF, PRICING, surfacesCatalog } from './catalog.js';
import { frames, PROTOCOLS, surfaceRequest, type Protocol } from './protocol-clients.js';

// A canned upstream of each protocol, with the quirks real ones have (extra fields, unknown events,
// CRLF frames, `data:` without a space): a same-protocol stream reaches the client byte for byte.
const CANNED = {
  openai: [
    'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"canned","system_fingerprint":"fp_x","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}\n\n',
    'data:{"id":"c1","object":"chat.completion.chunk","created":1,"model":"canned","choices":[{"index":0,"delta":{"content":"Hé  llo"},"finish_reason":null}],"usage":null,"obfuscation":"aZ"}\n\n',
    ': a comment line\n\n',
    'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"canned","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}\n\n',
    'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"canned","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":2,"total_tokens":13,"prompt_tokens_details":{"cached_tokens":3}}}\n\n',
    'data: [DONE]\n\n',
  ].join(''),
  anthropic: [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"canned","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":8,"cache_creation_input_tokens":0,"cache_read_input_tokens":3,"output_tokens":1,"service_tier":"standard"}}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
    'event: ping\ndata: {"type": "ping"}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hé  llo"}}\n\n',
    'event: future_event\ndata: {"type":"future_event","anything":[1,2]}\n\n',
    'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}\n\n',
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ].join(''),
  gemini: [
    'data: {"candidates": [{"content": {"parts": [{"text": "Hé"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 11,"totalTokenCount": 11},"modelVersion": "canned","responseId": "r1"}\r\n\r\n',
    'data: {"candidates": [{"content": {"parts": [{"text": "  llo"}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 11,"candidatesTokenCount": 2,"totalTokenCount": 13,"cachedContentTokenCount": 3},"modelVersion": "canned","responseId": "r1"}\r\n\r\n',
  ].join(''),
};
const CANNED_JSON =
  '{"id":"c2","object":"chat.completion","created":1,"model":"canned","choices":[{"index":0,"message":{"role":"assistant","content":"Hé","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":2,"total_tokens":13,"prompt_tokens_details":{"cached_tokens":3}},"service_tier":"default"}';

let gw: TestGateway;
let canned: Server;
let cannedUrl: string;

beforeAll(async () => {
  canned = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '';
      if (path === '/v1/chat/completions' && req.headers.accept === 'application/json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(CANNED_JSON);
      }
      const protocol: Protocol = path.startsWith('/v1/chat')
        ? 'openai'
        : path.startsWith('/v1/messages')
          ? 'anthropic'
          : 'gemini';
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // In small pieces, so frames and characters are cut between chunks.
      const bytes = Buffer.from(CANNED[protocol]);
      let at = 0;
      const next = () => {
        if (at >= bytes.length) return res.end();
        res.write(bytes.subarray(at, (at += 7)));
        setImmediate(next);
      };
      next();
    });
  }).listen(0, '127.0.0.1');
  await new Promise((r) => canned.once('listening', r));
  cannedUrl = `http://127.0.0.1:${(canned.address() as AddressInfo).port}`;
  gw = await startTestGateway({
    sim: { apiKey: 'sim-upstream-secret' },
    catalog: (simUrl) => {
      const catalog = surfacesCatalog(simUrl);
      catalog.providers.push(
        { id: 'canned-openai', protocol: 'openai', base_url: `${cannedUrl}/v1`, api_key: 'k' },
        { id: 'canned-anthropic', protocol: 'anthropic', base_url: cannedUrl, api_key: 'k' },
        { id: 'canned-gemini', protocol: 'gemini', base_url: cannedUrl, api_key: 'k' },
      );
      for (const p of PROTOCOLS)
        catalog.models.push({
          id: `canned-${p}`,
          endpoints: ['chat/completions'],
          routes: [{ provider: `canned-${p}`, upstream_model: `canned-${p}` }],
          pricing: PRICING,
          max_output_tokens: 100,
        } as never);
      return catalog;
    },
  });
});
afterAll(async () => {
  await gw?.close();
  canned?.close();
});

describe('same-protocol pass-through', () => {
  for (const protocol of PROTOCOLS) {
    it(`relays a ${protocol} stream byte for byte and charges its usage`, async () => {
      const acct = await gw.account({ balance: 1_000_000 });
      const { url, init } = surfaceRequest(protocol, gw.url, acct.key, {
        model: `canned-${protocol}`,
        text: 'hi',
        stream: true,
      });
      const res = await fetch(url, init);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(CANNED[protocol]))).toBe(true);
      const [record] = await waitForUsage(gw, acct.userId, 1);
      expect(record).toMatchObject({
        input_tokens: 11,
        cached_tokens: 3,
        output_tokens: 2,
        usage_estimated: false,
        error_code: null,
      });
    });
  }

  it('relays a whole chat completion byte for byte', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const { url, init } = surfaceRequest('openai', gw.url, acct.key, {
      model: 'canned-openai',
      text: 'hi',
      stream: false,
    });
    const res = await fetch(url, init);
    expect(await res.text()).toBe(CANNED_JSON);
  });

  it('translates the same canned streams for the other protocols, usage included', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    for (const client of PROTOCOLS) {
      for (const upstream of PROTOCOLS) {
        if (client === upstream) continue;
        const { url, init } = surfaceRequest(client, gw.url, acct.key, {
          model: `canned-${upstream}`,
          text: 'hi',
          stream: true,
        });
        const text = await (await fetch(url, init)).text();
        expect(text, `${client} ← ${upstream}`).toContain('llo');
        expect(text).toContain('Hé');
      }
    }
    const rows = await waitForUsage(gw, acct.userId, 6);
    for (const row of rows) expect(row).toMatchObject({ input_tokens: 11, cached_tokens: 3, output_tokens: 2 });
  });
});

const LAST_EVENT: Record<Protocol, (text: string) => unknown> = {
  openai: (text) => JSON.parse(frames(text).at(-1)!.data),
  anthropic: (text) => {
    const last = frames(text).at(-1)!;
    expect(last.event).toBe('error');
    return JSON.parse(last.data);
  },
  gemini: (text) => JSON.parse(frames(text).at(-1)!.data),
};
const ERROR_CODE: Record<Protocol, (event: any) => string> = {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  openai: (e) => e.error.code,
  anthropic: (e) => e.error.code,
  gemini: (e) => e.error.details[0].reason,
};

describe('a stream the upstream cuts', () => {
  for (const client of PROTOCOLS) {
    for (const upstream of PROTOCOLS) {
      it(`ends a ${client} stream from a ${upstream} upstream with the ${client} error event`, async () => {
        const acct = await gw.account({ balance: 1_000_000 });
        for (const [fault, code] of [
          ['disconnect', 'upstream_stream_interrupted'],
          ['errorMidStream', 'upstream_error'],
        ] as const) {
          const { url, init } = surfaceRequest(client, gw.url, acct.key, {
            model: MODEL_OF[upstream],
            text: `hi [[sim:fault=${fault},faultAfterChunks=2]]`,
            stream: true,
          });
          const res = await fetch(url, init);
          expect(res.status).toBe(200);
          const text = await res.text();
          expect(text).not.toContain('[DONE]');
          expect(text).not.toContain('message_stop');
          expect(ERROR_CODE[client](LAST_EVENT[client](text))).toBe(code);
        }
        const rows = await waitForUsage(gw, acct.userId, 2);
        expect(rows.map((r) => r.error_code).sort()).toEqual(['upstream_error', 'upstream_stream_interrupted']);
      });
    }
  }
});

describe('routes', () => {
  it('answers what is not built with 501 in the protocol of its prefix', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const post = (path: string, headers: Record<string, string>) =>
      fetch(`${gw.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
    for (const path of [
      '/v1/audio/speech',
      '/v1/realtime/sessions',
      '/v1/fine_tuning/jobs',
      '/v1/images/variations',
      '/v1/responses/resp_1/cancel',
    ]) {
      const res = await post(path, { authorization: `Bearer ${acct.key}` });
      expect(res.status, path).toBe(501);
      expect(await res.json()).toMatchObject({ error: { code: 'not_implemented', type: 'api_error' } });
    }
    const messages = await post('/native-messages/v1/complete', { 'x-api-key': acct.key });
    expect(messages.status).toBe(501);
    expect(await messages.json()).toMatchObject({ type: 'error', error: { code: 'not_implemented' } });
    for (const path of [
      '/v1beta/models/gemini-sim:countMessageTokens',
      '/native-content/v1beta/cachedContents',
      '/v1beta/models/gemini-sim:predict',
    ]) {
      const res = await post(path, { 'x-goog-api-key': acct.key });
      expect(res.status, path).toBe(501);
      expect(await res.json()).toMatchObject({
        error: { code: 501, status: 'UNIMPLEMENTED', details: [{ reason: 'not_implemented' }] },
      });
    }
  });

  it('routes generation calls on the fast path whatever their query string', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const body = JSON.stringify({ model: 'gpt-sim', messages: [{ role: 'user', content: 'hi' }] });
    const res = await fetch(`${gw.url}/v1/chat/completions?trace=1&x=y`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('request-id')).toBe(res.headers.get('x-request-id'));
    const messages = await fetch(`${gw.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'x-api-key': acct.key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-sim', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(messages.status).toBe(200);
  });
});

describe('bad input', () => {
  it('answers 400 in the surface format naming the field, and charges nothing', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const send = (path: string, headers: Record<string, string>, body: string) =>
      fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const openai = { authorization: `Bearer ${acct.key}` };
    const messages = { 'x-api-key': acct.key };
    const content = { 'x-goog-api-key': acct.key };

    const cases: [string, Record<string, string>, string, Protocol, string][] = [
      ['/native-messages/v1/messages', messages, '{"model":', 'anthropic', ''],
      [
        '/native-messages/v1/messages',
        messages,
        JSON.stringify({ model: 'claude-sim', max_tokens: 5 }),
        'anthropic',
        'messages',
      ],
      [
        '/native-messages/v1/messages',
        messages,
        JSON.stringify({ model: 'claude-sim', max_tokens: 5, messages: [{ role: 'robot', content: 'x' }] }),
        'anthropic',
        'messages[0].role',
      ],
      [
        '/v1beta/models/gemini-sim:generateContent',
        content,
        JSON.stringify({ contents: [{ role: 'user' }] }),
        'gemini',
        'contents[0].parts',
      ],
      ['/v1beta/models/gemini-sim:generateContent', content, '[]', 'gemini', ''],
      // Fields the upstream's protocol cannot express are refused by name, before anything is reserved.
      [
        '/v1/chat/completions',
        openai,
        JSON.stringify({ model: 'claude-sim', logprobs: true, messages: [{ role: 'user', content: 'x' }] }),
        'openai',
        'logprobs',
      ],
      [
        '/v1/chat/completions',
        openai,
        JSON.stringify({ model: 'claude-sim', n: 2, messages: [{ role: 'user', content: 'x' }] }),
        'openai',
        'n',
      ],
      [
        '/v1/chat/completions',
        openai,
        JSON.stringify({ model: 'gemini-sim', parallel_tool_calls: false, messages: [{ role: 'user', content: 'x' }] }),
        'openai',
        'parallel_tool_calls',
      ],
      [
        '/native-messages/v1/messages',
        messages,
        JSON.stringify({ model: 'gpt-sim', max_tokens: 5, top_k: 3, messages: [{ role: 'user', content: 'x' }] }),
        'anthropic',
        'top_k',
      ],
      [
        '/v1beta/models/gpt-sim:generateContent',
        content,
        JSON.stringify({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { topK: 3 } }),
        'gemini',
        'generationConfig.topK',
      ],
      [
        '/v1/chat/completions',
        openai,
        JSON.stringify({
          model: 'claude-sim',
          messages: [
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{not json' } }],
            },
          ],
        }),
        'openai',
        'messages[0].tool_calls',
      ],
      // A generateContent upstream reads only inline images: the gateway fetches URLs through its safe fetcher.
      [
        '/v1/chat/completions',
        openai,
        JSON.stringify({
          model: 'gemini-sim',
          messages: [
            { role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://127.0.0.1:1/x.png' } }] },
          ],
        }),
        'openai',
        'messages[0].content[0]',
      ],
    ];
    for (const [path, headers, body, protocol, field] of cases) {
      const res = await send(path, headers, body);
      const json = (await res.json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(res.status, `${path} ${body}`).toBe(400);
      if (protocol === 'openai') expect(json.error.param ?? '', body).toBe(field);
      if (protocol === 'anthropic')
        expect(json).toMatchObject({
          type: 'error',
          error: { type: 'invalid_request_error', ...(field && { param: field }) },
        });
      if (protocol === 'gemini')
        expect(json.error).toMatchObject({
          code: 400,
          status: 'INVALID_ARGUMENT',
          ...(field && { details: [{ metadata: { field } }] }),
        });
    }
    await waitForUsage(gw, acct.userId, 0);
    const rows = await usageRecords(gw.services.db, acct.userId);
    expect(rows.every((r) => Number(r.charged_micro_usd) === 0)).toBe(true);
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(1_000_000);
  });

  it('passes fields it does not read through to a same-protocol upstream', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const body = {
      model: 'claude-sim',
      max_tokens: 5,
      metadata: { user_id: 'u-1' },
      future_param: { on: true },
      messages: [{ role: 'user', content: 'x' }],
    };
    const res = await fetch(`${gw.url}/native-messages/v1/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': acct.key,
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'some-beta',
      },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const seen = gw.sim.stats();
    expect(JSON.parse(seen.lastRequestText!)).toMatchObject({
      model: 'up-claude',
      future_param: { on: true },
      metadata: { user_id: 'u-1' },
    });
    expect(seen.lastHeaders).toMatchObject({ 'anthropic-beta': 'some-beta', 'x-api-key': 'sim-upstream-secret' });
  });
});
