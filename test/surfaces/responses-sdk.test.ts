import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { usageRecords, waitForUsage } from '../support/money.js';
import { PRICING, surfacesCatalog } from './catalog.js';
import { WEATHER_TOOL } from './protocol-clients.js';

// The official openai SDK's responses.create against every upstream protocol.
let gw: TestGateway;
let client: OpenAI;
let userId: string;

beforeAll(async () => {
  gw = await startTestGateway({ catalog: surfacesCatalog, sim: { apiKey: 'sim-upstream-secret' } });
  for (const upstream of ['up-gpt', 'up-claude', 'up-gemini'])
    gw.sim.setModel(upstream, { naturalLength: true, cachedTokens: 2 });
  const acct = await gw.account({ balance: 5_000_000 });
  userId = acct.userId;
  client = new OpenAI({ apiKey: acct.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
afterAll(() => gw?.close());

const tool = {
  type: 'function' as const,
  name: WEATHER_TOOL.name,
  description: WEATHER_TOOL.description,
  parameters: WEATHER_TOOL.parameters,
  strict: false,
};

describe('Responses', () => {
  for (const model of ['gpt-sim', 'claude-sim', 'gemini-sim']) {
    it(`answers plain and streamed, usage on response.completed (${model})`, async () => {
      const response = await client.responses.create({ model, input: 'hello there', instructions: 'Be brief.' });
      expect(response.object).toBe('response');
      expect(response.status).toBe('completed');
      expect(response.output_text).toContain('tok16');
      // 3 per request + 3 per turn (instructions and input) + their words.
      expect(response.usage).toMatchObject({
        input_tokens: 3 + 3 + 2 + 3 + 2,
        output_tokens: 16,
        input_tokens_details: { cached_tokens: 2 },
      });

      const events: string[] = [];
      let text = '';
      let completed: OpenAI.Responses.Response | undefined;
      const stream = await client.responses.create({
        model,
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'hello there' }] }],
        stream: true,
      });
      for await (const event of stream) {
        events.push(event.type);
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed') completed = event.response;
      }
      expect(events.slice(0, 4)).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
      ]);
      expect(events.slice(-4)).toEqual([
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      expect(text).toBe(response.output_text);
      expect(completed?.usage).toMatchObject({ input_tokens: 8, output_tokens: 16 });

      // The SDK's own helper checks the event order (items announced before their deltas).
      const helper = client.responses.stream({ model, input: 'hello there' });
      const final = await helper.finalResponse();
      expect(final.output_text).toContain('tok16');
    });

    it(`runs a function-tool round trip (${model})`, async () => {
      const first = await client.responses.create({ model, input: 'Paris', tools: [tool] });
      const call = first.output.find((item) => item.type === 'function_call');
      expect(call).toMatchObject({ type: 'function_call', name: 'get_weather' });
      expect(JSON.parse((call as OpenAI.Responses.ResponseFunctionToolCall).arguments)).toEqual({ city: 'Paris' });
      const second = await client.responses.create({
        model,
        tools: [tool],
        input: [
          { role: 'user', content: 'Paris' },
          call as OpenAI.Responses.ResponseFunctionToolCall,
          {
            type: 'function_call_output',
            call_id: (call as OpenAI.Responses.ResponseFunctionToolCall).call_id,
            output: 'sunny, 21 C',
          },
        ],
      });
      expect(second.output_text).toContain('tok1');
      expect(gw.sim.stats().lastRequestText).toContain('sunny, 21 C');

      const streamed: string[] = [];
      let args = '';
      for await (const event of await client.responses.create({ model, input: 'Rome', tools: [tool], stream: true })) {
        streamed.push(event.type);
        if (event.type === 'response.function_call_arguments.delta') args += event.delta;
      }
      expect(streamed).toContain('response.function_call_arguments.done');
      expect(JSON.parse(args)).toEqual({ city: 'Rome' });
    });
  }

  it('is charged and recorded like chat, with its own surface', async () => {
    await waitForUsage(gw, userId, 1);
    const rows = await usageRecords(gw.services.db, userId);
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) {
      expect(row).toMatchObject({ surface: 'responses', endpoint: 'chat/completions', status_code: 200 });
      const expected = Math.ceil(
        ((row.input_tokens - row.cached_tokens) * PRICING.input_per_mtok +
          row.cached_tokens * PRICING.cached_input_per_mtok +
          row.output_tokens * PRICING.output_per_mtok) /
          1_000_000,
      );
      expect(Number(row.charged_micro_usd)).toBe(expected);
    }
  });

  it('refuses what it does not keep, and bad input, by name', async () => {
    const bad = async (body: Record<string, unknown>, param: string) => {
      const err = await client.responses.create(body as never).catch((e: unknown) => e);
      expect(err, JSON.stringify(body)).toBeInstanceOf(OpenAI.BadRequestError);
      expect((err as InstanceType<typeof OpenAI.APIError>).param).toBe(param);
    };
    await bad({ model: 'gpt-sim', input: 'x', store: true }, 'store');
    await bad({ model: 'gpt-sim', input: 'x', previous_response_id: 'resp_1' }, 'previous_response_id');
    await bad({ model: 'gpt-sim', input: 'x', background: true }, 'background');
    await bad({ model: 'gpt-sim', input: '' }, 'input');
    await bad({ model: 'gpt-sim', input: [] }, 'input');
    await bad({ model: 'gpt-sim', input: 'x', tools: [{ type: 'web_search' }] }, 'tools[0].type');
    await bad(
      { model: 'gpt-sim', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'f1' }] }] },
      'input[0].content[0].image_url',
    );
  });
});
