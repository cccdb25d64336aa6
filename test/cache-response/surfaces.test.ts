import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitForUsage } from '../support/money.js';
import { surfacesCatalog } from '../surfaces/catalog.js';
import { upstreamCalls, waitForEntries } from './support.js';

// A hit and a miss on every text surface, streamed and not, through the official SDKs: the first
// call goes upstream and is stored, the same request again (streamed or not: `stream` is not part
// of the key) is answered from the cache with the same content and usage, and the upstream sees
// nothing more.
let gw: TestGateway;
let key: string;
let userId: string;

beforeAll(async () => {
  gw = await startTestGateway({ catalog: surfacesCatalog, sim: { apiKey: 'sim-upstream-secret' } });
  for (const upstream of ['up-gpt', 'up-claude', 'up-gemini']) gw.sim.setModel(upstream, { naturalLength: true });
  const acct = await gw.account({ balance: 50_000_000, key: { cache_ttl_seconds: 600 } });
  key = acct.key;
  userId = acct.userId;
});
afterAll(() => gw?.close());

let entries = 0;
/** Runs `first` (a miss, stored), then each of `again` (hits), checking the upstream saw only the first. */
async function missThenHits<T>(
  upstream: string,
  first: () => Promise<{ status: string | null; value: T }>,
  again: Array<() => Promise<{ status: string | null; value: T }>>,
  same: (a: T, b: T) => void,
): Promise<void> {
  const before = upstreamCalls(gw, upstream);
  const miss = await first();
  expect(miss.status).toBe('MISS');
  await waitForEntries(gw, userId, ++entries);
  for (const call of again) {
    const hit = await call();
    expect(hit.status).toBe('HIT');
    same(miss.value, hit.value);
  }
  expect(upstreamCalls(gw, upstream)).toBe(before + 1);
}

describe('the response cache on every text surface', () => {
  const openai = () => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });

  for (const [model, upstream] of [
    ['gpt-sim', 'up-gpt'],
    ['claude-sim', 'up-claude'],
  ] as const) {
    it(`chat completions, whole then streamed (${model})`, async () => {
      const messages = [{ role: 'user' as const, content: `chat whole ${model}` }];
      const whole = async () => {
        const { data, response } = await openai()
          .chat.completions.create({ model, messages, user: `u-${Math.random()}` })
          .withResponse();
        return { status: response.headers.get('x-service-cache'), value: data };
      };
      const streamed = async () => {
        const { data: stream, response } = await openai()
          .chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } })
          .withResponse();
        let text = '';
        let usage: OpenAI.CompletionUsage | undefined;
        let finish: string | null = null;
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? '';
          finish = chunk.choices[0]?.finish_reason ?? finish;
          if (chunk.usage) usage = chunk.usage;
        }
        return {
          status: response.headers.get('x-service-cache'),
          value: {
            choices: [{ message: { content: text }, finish_reason: finish }],
            usage,
          } as unknown as OpenAI.ChatCompletion,
        };
      };
      await missThenHits(upstream, whole, [whole, streamed], (a, b) => {
        expect(b.choices[0]!.message.content).toBe(a.choices[0]!.message.content);
        expect(b.choices[0]!.finish_reason).toBe(a.choices[0]!.finish_reason);
        expect(b.usage).toMatchObject({
          prompt_tokens: a.usage!.prompt_tokens,
          completion_tokens: a.usage!.completion_tokens,
        });
      });
    });
  }

  it('chat completions, streamed first: a clean stream is stored and replayed with its usage', async () => {
    const messages = [{ role: 'user' as const, content: 'chat streamed first' }];
    const streamed = async () => {
      const { data: stream, response } = await openai()
        .chat.completions.create({ model: 'gpt-sim', messages, stream: true, stream_options: { include_usage: true } })
        .withResponse();
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      let chunks = 0;
      for await (const chunk of stream) {
        chunks++;
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      return { status: response.headers.get('x-service-cache'), value: { text, usage, chunks } };
    };
    await missThenHits('up-gpt', streamed, [streamed], (a, b) => {
      expect(b.text).toBe(a.text);
      expect(b.text).toContain('tok16');
      expect(b.usage).toMatchObject({ prompt_tokens: a.usage!.prompt_tokens, completion_tokens: 16 });
    });
  });

  /** A Responses call, whole and streamed (its events from `response.created` to `response.completed`). */
  const responsesCalls = (input: string) => {
    const whole = async () => {
      const { data, response } = await openai().responses.create({ model: 'gemini-sim', input }).withResponse();
      return { status: response.headers.get('x-service-cache'), value: { text: data.output_text, usage: data.usage } };
    };
    const streamed = async () => {
      const { data: stream, response } = await openai()
        .responses.create({ model: 'gemini-sim', input, stream: true })
        .withResponse();
      let text = '';
      let usage: OpenAI.Responses.ResponseUsage | undefined;
      const types: string[] = [];
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed') usage = event.response.usage;
      }
      expect(types[0]).toBe('response.created');
      expect(types.at(-1)).toBe('response.completed');
      return { status: response.headers.get('x-service-cache'), value: { text, usage } };
    };
    return { whole, streamed };
  };
  type ResponsesValue = { text: string; usage: OpenAI.Responses.ResponseUsage | undefined };
  const sameResponse = (a: ResponsesValue, b: ResponsesValue) => {
    expect(b.text).toBe(a.text);
    expect(b.text).not.toBe('');
    expect(b.usage).toMatchObject({ input_tokens: a.usage!.input_tokens, output_tokens: a.usage!.output_tokens });
  };

  it('Responses, whole then streamed', async () => {
    const { whole, streamed } = responsesCalls('responses surface');
    await missThenHits('up-gemini', whole, [whole, streamed], sameResponse);
  });

  it('Responses, a streamed miss then a streamed hit', async () => {
    const { streamed } = responsesCalls('responses streamed twice');
    await missThenHits('up-gemini', streamed, [streamed], sameResponse);
  });

  it('Messages, streamed then whole', async () => {
    const client = new Anthropic({ apiKey: key, baseURL: `${gw.url}/native-messages`, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'messages surface' }];
    const streamed = async () => {
      const { data: stream, response } = await client.messages
        .create({ model: 'claude-sim', max_tokens: 100, messages, stream: true })
        .withResponse();
      let text = '';
      let output = 0;
      let input = 0;
      const types: string[] = [];
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'message_start') input = event.message.usage.input_tokens;
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
        if (event.type === 'message_delta') output = event.usage.output_tokens;
      }
      expect(types[0]).toBe('message_start');
      expect(types.at(-1)).toBe('message_stop');
      return { status: response.headers.get('x-service-cache'), value: { text, input, output } };
    };
    const whole = async () => {
      const { data, response } = await client.messages
        .create({ model: 'claude-sim', max_tokens: 100, messages, metadata: { user_id: 'someone' } })
        .withResponse();
      const block = data.content[0];
      return {
        status: response.headers.get('x-service-cache'),
        value: {
          text: block?.type === 'text' ? block.text : '',
          input: data.usage.input_tokens,
          output: data.usage.output_tokens,
        },
      };
    };
    await missThenHits('up-claude', streamed, [whole, streamed], (a, b) => {
      expect(b).toEqual(a);
      expect(b.output).toBe(16);
    });
  });

  /** A generateContent call, whole and streamed (streamGenerateContent). */
  const contentCalls = (contents: string) => {
    const genai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: `${gw.url}/native-content` } });
    const whole = async () => {
      const answer = await genai.models.generateContent({ model: 'gemini-sim', contents });
      return {
        status: answer.sdkHttpResponse?.headers?.['x-service-cache'] ?? null,
        value: { text: answer.text, usage: answer.usageMetadata?.candidatesTokenCount },
      };
    };
    const streamed = async () => {
      let text = '';
      let usage: number | undefined;
      let status: string | null = null;
      for await (const chunk of await genai.models.generateContentStream({ model: 'gemini-sim', contents })) {
        status ??= chunk.sdkHttpResponse?.headers?.['x-service-cache'] ?? null;
        text += chunk.text ?? '';
        usage = chunk.usageMetadata?.candidatesTokenCount ?? usage;
      }
      return { status, value: { text, usage } };
    };
    return { whole, streamed };
  };
  const sameContent = (a: { text?: string; usage?: number }, b: { text?: string; usage?: number }) => {
    expect(b).toEqual(a);
    expect(b.usage).toBe(16);
  };

  it('generateContent, whole then streamed', async () => {
    const { whole, streamed } = contentCalls('content surface');
    await missThenHits('up-gemini', whole, [whole, streamed], sameContent);
  });

  it('generateContent, a streamed miss then a streamed hit', async () => {
    const { streamed } = contentCalls('content streamed twice');
    await missThenHits('up-gemini', streamed, [streamed], sameContent);
  });

  it('writes a usage record of each hit with cache_hit and the original tokens', async () => {
    const rows = await waitForUsage(gw, userId, 21);
    const hits = rows.filter((r) => (r as { cache_hit?: boolean }).cache_hit);
    expect(hits.length).toBe(13);
    for (const hit of hits) {
      expect(hit.status_code).toBe(200);
      expect(hit.output_tokens).toBe(16);
      expect(hit.input_tokens).toBeGreaterThan(0);
      expect(hit.provider).toBeNull();
    }
  });
});
