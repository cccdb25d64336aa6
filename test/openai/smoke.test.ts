import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

describe('smoke', () => {
  it('answers a chat completion and a stream', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const client = new OpenAI({ apiKey: acct.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: 'gpt-sim',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(res.choices[0]?.message.content).toContain('tok1');
    const stream = await client.chat.completions.create({
      model: 'gpt-sim',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toContain('tok16');
    await gw.drainer.idle();
    const bal = await gw.services.balances.currentBalance(acct.userId);
    expect(bal?.balance).toBeLessThan(1_000_000);
  });
});
