import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Json, signIn } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { usageRecords, waitForUsage } from '../support/money.js';
import { surfacesCatalog } from './catalog.js';

// Spec, behaviour 6: a prompt template bound to the key goes in front of the system prompt of
// Messages-style, Responses and generative-content-style calls too (chat completions: see
// test/routing/routing.test.ts). Each surface is called through its official SDK; the simulator
// shows what the upstream received, in its own protocol's system field.
const VARS = { 'x-service-template-vars': JSON.stringify({ team: 'ops' }) };
const rules = (model: string) => `House rules for ${model}: ops.`;
let gw: TestGateway;
let key: string;
let userId: string;

beforeAll(async () => {
  gw = await startTestGateway({ catalog: surfacesCatalog, sim: { apiKey: 'sim-upstream-secret' } });
  const acct = await gw.account({ balance: 5_000_000 });
  ({ key, userId } = acct);
  const { token } = await signIn(gw, acct.email);
  const created = await api(gw, 'POST', '/prompt-templates', {
    token,
    body: {
      name: 'house-rules',
      versions: [{ label: 'a', text: 'House rules for {{model}}: {{team}}.', weight: 1 }],
      key_ids: [acct.keyId],
    },
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
});
afterAll(() => gw?.close());

const upstreamBody = () => gw.sim.stats().lastRequestBody as Json;

/** The latest call's usage record names the template version it ran. */
async function expectTemplateRecorded(count: number) {
  await waitForUsage(gw, userId, count);
  const last = (await usageRecords(gw.services.db, userId)).at(-1)!;
  expect(last.status_code).toBe(200);
  expect(last.template_version_id).toMatch(/^[0-9a-f-]{36}$/);
}
let calls = 0;

describe('Messages (/native-messages)', () => {
  const client = () =>
    new Anthropic({ apiKey: key, baseURL: `${gw.url}/native-messages`, maxRetries: 0, defaultHeaders: VARS });
  const ask = (model: string, system?: Anthropic.MessageCreateParams['system']) =>
    client().messages.create({
      model,
      max_tokens: 20,
      ...(system !== undefined && { system }),
      messages: [{ role: 'user', content: 'hi' }],
    });

  it('puts the template in front of a string system prompt, an array of blocks, or none', async () => {
    await ask('claude-sim', 'Be brief.');
    expect(upstreamBody().system).toBe(`${rules('claude-sim')}\n\nBe brief.`);
    await ask('claude-sim', [{ type: 'text', text: 'Be brief.' }]);
    expect(upstreamBody().system).toEqual([
      { type: 'text', text: rules('claude-sim') },
      { type: 'text', text: 'Be brief.' },
    ]);
    await ask('claude-sim');
    expect(upstreamBody().system).toBe(rules('claude-sim'));
    expect(upstreamBody().messages).toEqual([{ role: 'user', content: 'hi' }]);
    await expectTemplateRecorded((calls += 3));
  });

  it('keeps it in front when the call is translated to another protocol', async () => {
    await ask('gpt-sim', 'Be brief.');
    expect(upstreamBody().messages[0]).toEqual({ role: 'system', content: `${rules('gpt-sim')}\n\nBe brief.` });
    await expectTemplateRecorded((calls += 1));
  });
});

describe('Responses (/v1/responses)', () => {
  const client = () => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0, defaultHeaders: VARS });

  it('puts the template in front of the instructions, or makes it the instructions', async () => {
    await client().responses.create({ model: 'gpt-sim', input: 'hi', instructions: 'Be brief.' });
    expect(upstreamBody().messages[0]).toEqual({ role: 'system', content: `${rules('gpt-sim')}\n\nBe brief.` });
    await client().responses.create({ model: 'gpt-sim', input: 'hi' });
    expect(upstreamBody().messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(upstreamBody().messages[0].content).toBe(rules('gpt-sim'));
    await client().responses.create({ model: 'claude-sim', input: 'hi', instructions: 'Be brief.' });
    expect(upstreamBody().system).toBe(`${rules('claude-sim')}\n\nBe brief.`);
    await expectTemplateRecorded((calls += 3));
  });
});

describe('generateContent (/native-content)', () => {
  const client = () =>
    new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: `${gw.url}/native-content`, headers: VARS } });

  it('puts the template first among the system instruction’s parts, or makes it the instruction', async () => {
    await client().models.generateContent({
      model: 'gemini-sim',
      contents: 'hi',
      config: { systemInstruction: 'Be brief.' },
    });
    expect(upstreamBody().systemInstruction.parts).toEqual([
      { text: `${rules('gemini-sim')}\n\n` },
      { text: 'Be brief.' },
    ]);
    let streamed = '';
    for await (const chunk of await client().models.generateContentStream({ model: 'gemini-sim', contents: 'hi' }))
      streamed += chunk.text ?? '';
    expect(streamed).not.toBe('');
    expect(upstreamBody().systemInstruction.parts).toEqual([{ text: rules('gemini-sim') }]);
    await client().models.generateContent({
      model: 'claude-sim',
      contents: 'hi',
      config: { systemInstruction: 'Be brief.' },
    });
    expect(upstreamBody().system).toBe(`${rules('claude-sim')}\n\nBe brief.`);
    await expectTemplateRecorded((calls += 3));
  });
});
