import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// Private-protocol ak- keys work only under /server: every other gateway route refuses them at
// step 1, in its own protocol, saying why; they are never charged.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

describe('key forms', () => {
  it("refuses an ak- key on every standard route, in that route's format", async () => {
    const acct = await gw.account({ balance: 1_000_000, key: { kind: 'private' } });
    expect(acct.key).toMatch(/^ak-/);
    const chat = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-sim', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(401);
    expect(await chat.json()).toMatchObject({
      error: { code: 'invalid_api_key', message: expect.stringContaining('/server') },
    });
    const messages = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': acct.key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-sim', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(messages.status).toBe(401);
    expect(await messages.json()).toMatchObject({ type: 'error', error: { code: 'invalid_api_key' } });
    for (const path of ['/v1/models', '/v1/key/usage', '/v1/videos', '/v1/assets']) {
      const res = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${acct.key}` } });
      expect(res.status, path).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    }
    expect(await gw.services.balances.currentBalance(acct.userId)).toMatchObject({ balance: 1_000_000 });
  });
});
