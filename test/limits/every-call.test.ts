import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';

// The rate-limit layers apply to every authenticated data-plane call, not only to generations.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

const get = (key: string, path: string) => fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${key}` } });

describe('limits on every gateway call', () => {
  it('a model list counts toward the key RPM and is refused past it, with Retry-After and the rate-limit headers', async () => {
    const { key } = await gw.account({ balance: 1_000_000, key: { rpm_limit: 2 } });
    const first = await get(key, '/v1/models');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect((await get(key, '/v1/models/gpt-sim')).status).toBe(200);
    const refused = await get(key, '/v1/models');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
  });

  it('estimates, task reads and key-usage lookups count too, and share the window with chat calls', async () => {
    const { key } = await gw.account({ balance: 1_000_000, key: { rpm_limit: 4 } });
    const estimate = await fetch(`${gw.url}/v1/estimates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ endpoint: 'chat/completions', payload: chatRequest('gpt-sim', 'price me') }),
    });
    expect(estimate.status).toBe(200);
    expect((await get(key, '/v1/videos')).status).toBe(200);
    expect((await get(key, '/v1/key/usage')).status).toBe(200);
    expect((await postChat(gw.url, key, chatRequest('gpt-sim', 'hi', { max_tokens: 2 }))).status).toBe(200);
    expect((await postChat(gw.url, key, chatRequest('gpt-sim', 'hi', { max_tokens: 2 }))).status).toBe(429);
    expect((await get(key, '/v1/key/usage')).status).toBe(429);
  });

  it('holds no concurrency slot: a key with one slot lists models and then calls at once', async () => {
    const { key } = await gw.account({ balance: 1_000_000, key: { concurrency_limit: 1 } });
    for (let i = 0; i < 3; i++) expect((await get(key, '/v1/models')).status).toBe(200);
    expect((await get(key, '/v1/key/usage')).status).toBe(200);
    expect((await postChat(gw.url, key, chatRequest('gpt-sim', 'hi', { max_tokens: 2 }))).status).toBe(200);
  });

  it('the account layer counts them as well, and a key over its spending cap can still list models', async () => {
    const acct = await gw.account({ balance: 1_000_000, key: { total_micro_usd: 0 } });
    expect((await get(acct.key, '/v1/models')).status).toBe(200);
    expect((await postChat(gw.url, acct.key, chatRequest('gpt-sim', 'hi'))).status).toBe(429);
  });
});
