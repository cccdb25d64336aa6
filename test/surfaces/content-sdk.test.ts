import { ApiError, FunctionCallingConfigMode, GoogleGenAI, type Content } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitForUsage } from '../support/money.js';
import { surfacesCatalog } from './catalog.js';
import { WEATHER_TOOL } from './protocol-clients.js';

// The official generative-content SDK against /native-content and the bare origin (/v1beta).
let gw: TestGateway;
let key: string;
let userId: string;
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

beforeAll(async () => {
  gw = await startTestGateway({ catalog: surfacesCatalog, sim: { apiKey: 'sim-upstream-secret' } });
  gw.sim.setModel('up-gpt', { naturalLength: true });
  const acct = await gw.account({ balance: 5_000_000 });
  key = acct.key;
  userId = acct.userId;
});
afterAll(() => gw?.close());

const client = (baseUrl: string, apiKey = key) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl } });
const declaration = {
  name: WEATHER_TOOL.name,
  description: WEATHER_TOOL.description,
  parametersJsonSchema: WEATHER_TOOL.parameters,
};

describe('the generative-content SDK', () => {
  for (const model of ['gemini-sim', 'gpt-sim', 'claude-sim']) {
    it(`generates, streams and calls a tool (${model})`, async () => {
      for (const base of [`${gw.url}/native-content`, gw.url]) {
        const genai = client(base);
        const answer = await genai.models.generateContent({ model, contents: 'hello there' });
        expect(answer.text).toContain('tok16');
        expect(answer.candidates?.[0]?.finishReason).toBe('STOP');
        expect(answer.usageMetadata).toMatchObject({
          promptTokenCount: 8,
          candidatesTokenCount: 16,
          totalTokenCount: 24,
        });

        let streamed = '';
        let last: unknown;
        for await (const chunk of await genai.models.generateContentStream({ model, contents: 'hello there' })) {
          streamed += chunk.text ?? '';
          last = chunk;
        }
        expect(streamed).toBe(answer.text);
        expect(last).toMatchObject({
          candidates: [{ finishReason: 'STOP' }],
          usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 16 },
        });
      }

      const genai = client(`${gw.url}/native-content`);
      const config = {
        tools: [{ functionDeclarations: [declaration] }],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } },
      };
      const history: Content[] = [{ role: 'user', parts: [{ text: 'Paris' }] }];
      const first = await genai.models.generateContent({ model, contents: history, config });
      expect(first.functionCalls?.[0]).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
      history.push(first.candidates![0]!.content!, {
        role: 'user',
        parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny, 21 C' } } }],
      });
      const second = await genai.models.generateContent({ model, contents: history, config });
      expect(second.functionCalls).toBeUndefined();
      expect(second.text).toContain('tok1');
      expect(gw.sim.stats().lastRequestText).toContain('sunny, 21 C');
    });

    it(`takes an inline image (${model})`, async () => {
      const answer = await client(gw.url).models.generateContent({
        model,
        contents: [
          { role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: PNG } }, { text: 'what is it' }] },
        ],
      });
      expect(answer.text).toContain('tok1');
      expect(gw.sim.stats().lastRequestText).toContain(PNG);
    });
  }

  it('counts tokens and lists models', async () => {
    const genai = client(`${gw.url}/native-content`);
    const counted = await genai.models.countTokens({
      model: 'gemini-sim',
      contents: 'hello there, how are you today?',
    });
    expect(counted.totalTokens).toBeGreaterThan(5);
    expect(counted.totalTokens).toBeLessThan(30);
    const model = await genai.models.get({ model: 'claude-sim' });
    expect(model).toMatchObject({
      name: 'models/claude-sim',
      supportedActions: expect.arrayContaining(['generateContent']),
    });
    const names: string[] = [];
    for await (const m of await genai.models.list()) names.push(m.name!);
    expect(names).toEqual(expect.arrayContaining(['models/gpt-sim', 'models/claude-sim', 'models/gemini-sim']));
  });

  it('answers errors in its own format with our code as the ErrorInfo reason', async () => {
    const wrong = await client(gw.url, 'sk-not-a-key')
      .models.generateContent({ model: 'gemini-sim', contents: 'x' })
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(ApiError);
    expect((wrong as ApiError).status).toBe(401);
    const body = JSON.parse((wrong as ApiError).message) as {
      error: { code: number; status: string; details: { reason: string }[] };
    };
    expect(body.error).toMatchObject({
      code: 401,
      status: 'UNAUTHENTICATED',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'invalid_api_key' }],
    });

    const missing = await client(gw.url)
      .models.generateContent({ model: 'nope', contents: 'x' })
      .catch((e: unknown) => e);
    expect((missing as ApiError).status).toBe(404);
    expect(JSON.parse((missing as ApiError).message)).toMatchObject({
      error: { status: 'NOT_FOUND', details: [{ reason: 'model_not_found' }] },
    });

    const empty = await fetch(`${gw.url}/v1beta/models/gemini-sim:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [] }),
    });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        details: [{ reason: 'invalid_request', metadata: { field: 'contents' } }],
      },
    });
  });

  it('takes the key in ?key= and x-vendor-api-key too, and records the surface', async () => {
    const body = JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] });
    const query = await fetch(`${gw.url}/v1beta/models/gemini-sim:generateContent?key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(query.status).toBe(200);
    const vendor = await fetch(`${gw.url}/native-content/v1beta/models/gemini-sim:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-vendor-api-key': key },
      body,
    });
    expect(vendor.status).toBe(200);
    expect(await vendor.text()).toContain('"finishReason":"STOP"');
    const bearer = await fetch(`${gw.url}/v1beta/models/gemini-sim:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body,
    });
    expect(bearer.status).toBe(401);
    expect(await bearer.json()).toMatchObject({
      error: { status: 'UNAUTHENTICATED', message: expect.stringContaining('x-vendor-api-key') },
    });
    const rows = await waitForUsage(gw, userId, 2);
    expect(rows.filter((r) => r.surface === 'generate-content').length).toBeGreaterThan(2);
  });
});
