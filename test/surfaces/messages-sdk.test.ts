import Anthropic, { type APIError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { usageRecords, waitForUsage } from '../support/money.js';
import { surfacesCatalog } from './catalog.js';
import { WEATHER_TOOL } from './protocol-clients.js';

// The official Messages SDK against /native-messages (and the older unprefixed /v1/messages).
let gw: TestGateway;
let client: Anthropic;
let userId: string;
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

beforeAll(async () => {
  gw = await startTestGateway({ catalog: surfacesCatalog, sim: { apiKey: 'sim-upstream-secret' } });
  // Real models stop at their own length; max_tokens only cuts them short.
  gw.sim.setModel('up-gpt', { naturalLength: true });
  const acct = await gw.account({ balance: 5_000_000 });
  userId = acct.userId;
  client = new Anthropic({ apiKey: acct.key, baseURL: `${gw.url}/native-messages`, maxRetries: 0 });
});
afterAll(() => gw?.close());

const tool = {
  name: WEATHER_TOOL.name,
  description: WEATHER_TOOL.description,
  input_schema: WEATHER_TOOL.parameters as Anthropic.Tool.InputSchema,
};

describe('the Messages SDK', () => {
  for (const model of ['claude-sim', 'gpt-sim', 'gemini-sim']) {
    it(`creates a message and streams one (${model})`, async () => {
      const message = await client.messages.create({
        model,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hello there' }],
      });
      expect(message.type).toBe('message');
      expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('tok16') });
      expect(message.stop_reason).toBe('end_turn');
      expect(message.usage).toMatchObject({ input_tokens: 8, output_tokens: 16 });

      const events: string[] = [];
      const stream = client.messages.stream({
        model,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hello there' }],
      });
      stream.on('streamEvent', (event) => events.push(event.type));
      const final = await stream.finalMessage();
      expect(final.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('tok16') });
      expect(final.usage).toMatchObject({ input_tokens: 8, output_tokens: 16 });
      expect(events[0]).toBe('message_start');
      expect(events.at(-1)).toBe('message_stop');
      expect(events).toContain('content_block_delta');
      expect(events).toContain('message_delta');
    });

    it(`runs a tool-call round trip (${model})`, async () => {
      const first = await client.messages.create({
        model,
        max_tokens: 100,
        tools: [tool],
        messages: [{ role: 'user', content: 'Paris' }],
      });
      expect(first.stop_reason).toBe('tool_use');
      const call = first.content.find((b) => b.type === 'tool_use');
      expect(call).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } });
      const second = await client.messages.create({
        model,
        max_tokens: 100,
        tools: [tool],
        messages: [
          { role: 'user', content: 'Paris' },
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: call!.type === 'tool_use' ? call!.id : '', content: 'sunny, 21 C' },
            ],
          },
        ],
      });
      expect(second.stop_reason).toBe('end_turn');
      expect(second.content[0]).toMatchObject({ type: 'text' });
      // The tool result reached the upstream, whatever its protocol.
      expect(gw.sim.stats().lastRequestText).toContain('sunny, 21 C');
    });

    it(`takes an image (${model})`, async () => {
      const message = await client.messages.create({
        model,
        max_tokens: 10,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
              { type: 'text', text: 'what is this' },
            ],
          },
        ],
      });
      expect(message.content[0]?.type).toBe('text');
      expect(gw.sim.stats().lastRequestText).toContain(PNG);
    });
  }

  it('counts tokens with the model tokenizer, charging nothing', async () => {
    const counted = await client.messages.countTokens({
      model: 'claude-sim',
      messages: [{ role: 'user', content: 'hello there, how are you today?' }],
    });
    expect(counted.input_tokens).toBeGreaterThan(5);
    expect(counted.input_tokens).toBeLessThan(30);
  });

  it('answers errors as Messages errors with status, code and request id', async () => {
    const wrong = new Anthropic({ apiKey: 'sk-not-a-key', baseURL: `${gw.url}/native-messages`, maxRetries: 0 });
    const auth = await wrong.messages
      .create({ model: 'claude-sim', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(auth).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(auth).toMatchObject({ status: 401, errorCode: 'invalid_api_key', requestID: expect.any(String) });
    expect((auth as APIError).error).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error', code: 'invalid_api_key' },
    });

    const missing = await client.messages
      .create({ model: 'no-such-model', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect(missing).toMatchObject({ status: 404, errorCode: 'model_not_found' });

    const noMax = await client.messages
      .create({
        model: 'claude-sim',
        messages: [{ role: 'user', content: 'x' }],
      } as unknown as Anthropic.MessageCreateParamsNonStreaming)
      .catch((e: unknown) => e);
    expect(noMax).toBeInstanceOf(Anthropic.BadRequestError);
    expect((noMax as APIError).error).toMatchObject({
      error: { type: 'invalid_request_error', code: 'invalid_request', param: 'max_tokens' },
    });
  });

  it('serves the older unprefixed /v1/messages too, and records the surface', async () => {
    const older = new Anthropic({ apiKey: client.apiKey!, baseURL: gw.url, maxRetries: 0 });
    const message = await older.messages.create({
      model: 'claude-sim',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content[0]?.type).toBe('text');
    const rows = await waitForUsage(gw, userId, 1);
    expect(rows.every((r) => r.surface === 'messages' && r.endpoint === 'chat/completions')).toBe(true);
    expect((await usageRecords(gw.services.db, userId)).length).toBeGreaterThan(1);
  });
});
