import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, openAiError, postChat, sleep } from '../support/http.js';

// A concurrency lease lives LEASE_TTL_MS and is renewed while its call runs: a call that outlives
// the TTL must still hold its slot (and leave it when it ends).
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ env: { LEASE_TTL_MS: '1000' } });
});
afterAll(() => gw.close());

describe('concurrency leases', () => {
  it('a stream longer than the lease TTL keeps its slot until it ends', async () => {
    const acct = await gw.account({ balance: 1_000_000, key: { concurrency_limit: 1 } });
    // 18 events 100 ms apart: ~1.7 s, well past the 1 s lease.
    const slow = postChat(gw.url, acct.key, chatRequest('gpt-sim', '[[sim:chunkDelayMs=100]]', { stream: true }));
    await sleep(1_300);
    const during = await postChat(gw.url, acct.key, chatRequest('gpt-sim', 'me too', { max_tokens: 1 }));
    expect(during.status, during.text).toBe(429);
    expect(openAiError(during).code).toBe('rate_limit_exceeded');
    expect(during.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await slow).text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect((await postChat(gw.url, acct.key, chatRequest('gpt-sim', 'now', { max_tokens: 1 }))).status).toBe(200);
  });
});
