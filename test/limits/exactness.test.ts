import { o200kPromptTokens } from '../support/money.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat, readEvents, waitUntil } from '../support/http.js';
import { controlClock, errorOf, rateTrio, retryAfter, whenUpstreamReached } from '../support/limits.js';

// Domain time stands still in the exactness tests: GCRA then refills nothing while a burst is in
// flight, so "exactly N" is exact however slow the machine is.
const clock = controlClock();
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ clock });
});
afterAll(() => gw.close());
afterEach(() => clock.unfreeze());

const FUNDS = 100_000_000;

describe('RPM', () => {
  it('RPM 50: of 200 concurrent calls exactly 50 are admitted, the rest answer 429 naming the layer and dimension', async () => {
    clock.freeze();
    const acct = await gw.account({ balance: FUNDS, key: { rpm_limit: 50 } });
    gw.sim.resetStats();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        postChat(gw.url, acct.key, chatRequest('gpt-sim', `call ${i}`, { max_tokens: 5 })),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(50);
    expect(gw.sim.stats().requests).toBe(50);
    for (const r of refused) {
      expect(r.status, r.text).toBe(429);
      const err = errorOf(r);
      expect(err.code).toBe('rate_limit_exceeded');
      expect(err.type).toBe('rate_limit_error');
      expect(err.message).toMatch(/\bkey\b/);
      expect(err.message).toMatch(/\brequests\b/);
      expect(retryAfter(r)).toBeGreaterThanOrEqual(1);
      expect(rateTrio(r.headers, 'Requests')).toMatchObject({ limit: 50, remaining: 0 });
    }
    // Each admitted call saw a distinct remaining count: 49, 48, ... 0.
    expect(ok.map((r) => rateTrio(r.headers, 'Requests')!.remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i),
    );
  });

  it('a burst of N is followed by one more every 60/N seconds', async () => {
    clock.freeze();
    const acct = await gw.account({ balance: FUNDS, key: { rpm_limit: 6 } });
    const call = () => postChat(gw.url, acct.key, chatRequest('gpt-sim', 'x', { max_tokens: 1 }));
    for (let i = 0; i < 6; i++) expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(429);
    clock.advance(9_999);
    expect((await call()).status).toBe(429);
    clock.advance(1);
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(429);
  });
});

describe('concurrency', () => {
  it('concurrency 5 with slow upstream calls: never more than 5 in flight at the simulator; the others answer 429', async () => {
    const acct = await gw.account({ balance: FUNDS, key: { concurrency_limit: 5 } });
    gw.sim.resetStats();
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        postChat(gw.url, acct.key, chatRequest('gpt-sim', '[[sim:latencyMs=300]] slow', { max_tokens: 3 })),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(gw.sim.stats().maxInFlight).toBeLessThanOrEqual(5);
    expect(gw.sim.stats().maxInFlight).toBeGreaterThanOrEqual(1);
    expect(ok.length).toBeGreaterThanOrEqual(5);
    expect(gw.sim.stats().requests).toBe(ok.length);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.status, r.text).toBe(429);
      const err = errorOf(r);
      expect(err.code).toBe('rate_limit_exceeded');
      expect(err.message).toMatch(/concurrency/);
      expect(err.message).toMatch(/\bkey\b/);
      expect(retryAfter(r)).toBeGreaterThanOrEqual(1);
    }
  });

  it('the lease is released when the call ends, when the upstream fails, and when the client disconnects', async () => {
    const acct = await gw.account({ balance: FUNDS, key: { concurrency_limit: 1 } });
    const quick = () => postChat(gw.url, acct.key, chatRequest('gpt-sim', 'quick', { max_tokens: 1 }));
    expect((await quick()).status).toBe(200);
    expect((await quick()).status).toBe(200);

    const failed = await postChat(gw.url, acct.key, chatRequest('gpt-sim', '[[sim:fault=error500]]'));
    expect(failed.status).toBe(502);
    expect((await quick()).status).toBe(200);

    // An in-flight stream holds the only lease...
    const abort = new AbortController();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${acct.key}` },
      body: JSON.stringify(
        chatRequest('gpt-sim', '[[sim:chunkDelayMs=150,outputTokens=40]] long', { stream: true, max_tokens: 40 }),
      ),
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    await readEvents(res, (events) => events.length >= 2);
    const busy = await quick();
    expect(busy.status).toBe(429);
    expect(errorOf(busy).message).toMatch(/concurrency/);
    // ...until the client hangs up: then the next call is admitted (long before the 6 s stream would end).
    abort.abort();
    await waitUntil(async () => (await quick()).status === 200, 1_500, 25);
  });
});

describe('TPM', () => {
  it('reserves the estimated tokens while the call runs and corrects them to the actual usage afterwards', async () => {
    clock.freeze();
    const LIMIT = 1100; // gpt-sim reserves its max_output_tokens (1000) when a call sets no max_tokens
    const acct = await gw.account({ balance: FUNDS, key: { tpm_limit: LIMIT } });
    const requestA = chatRequest('gpt-sim', '[[sim:latencyMs=400]] hello') as {
      messages: { role: string; content: string }[];
    };
    const bodyA = JSON.stringify(requestA);
    const estA = o200kPromptTokens(requestA.messages) + 1000;
    expect(estA).toBeLessThanOrEqual(LIMIT);

    const { result: pendingA } = await whenUpstreamReached(gw, () => postChat(gw.url, acct.key, bodyA));

    // While A runs its estimate is reserved: the same call again does not fit.
    const b = await postChat(gw.url, acct.key, bodyA);
    expect(b.status, b.text).toBe(429);
    expect(errorOf(b).code).toBe('rate_limit_exceeded');
    expect(errorOf(b).message).toMatch(/\bkey\b.*\btokens\b/);
    const during = rateTrio(b.headers, 'Tokens')!;
    expect(during.limit).toBe(LIMIT);
    expect(Math.abs(during.remaining - (LIMIT - estA))).toBeLessThanOrEqual(1);
    expect(rateTrio(b.headers, 'Requests')).toBeUndefined();

    const a = await pendingA;
    expect(a.status, a.text).toBe(200);
    const tokensA = rateTrio(a.headers, 'Tokens')!;
    expect(Math.abs(tokensA.remaining - (LIMIT - estA))).toBeLessThanOrEqual(1);
    const actualA = (JSON.parse(a.text) as { usage: { total_tokens: number } }).usage.total_tokens;
    expect(actualA).toBeLessThan(100);

    // A used far fewer tokens than it reserved; the room is given back, with no time passing.
    const requestC = chatRequest('gpt-sim', 'again') as { messages: { role: string; content: string }[] };
    const bodyC = JSON.stringify(requestC);
    const estC = o200kPromptTokens(requestC.messages) + 1000;
    expect(estA + estC).toBeGreaterThan(LIMIT); // would be refused without the correction
    const c = await postChat(gw.url, acct.key, bodyC);
    expect(c.status, c.text).toBe(200);
    expect(Math.abs(rateTrio(c.headers, 'Tokens')!.remaining - (LIMIT - actualA - estC))).toBeLessThanOrEqual(1);
  });

  it('a call whose estimate exceeds the limit is refused as oversize, and consumes nothing', async () => {
    clock.freeze();
    const acct = await gw.account({ balance: FUNDS, key: { tpm_limit: 500 } });
    const big = await postChat(gw.url, acct.key, chatRequest('gpt-sim', 'hi', { max_tokens: 600 }));
    expect(big.status).toBe(429);
    expect(errorOf(big).message).toMatch(/\bkey\b.*500 tokens/);
    const small = await postChat(gw.url, acct.key, chatRequest('gpt-sim', 'hi', { max_tokens: 10 }));
    expect(small.status).toBe(200);
  });
});
