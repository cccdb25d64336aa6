import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { readEvents, waitUntil } from '../support/http.js';
import { expectConsistentLedger, pricedMicroUsd, waitForUsage } from '../support/money.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

const GPT_SIM = { input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 };
const CHUNK_DELAY_MS = 150;

describe('a client that hangs up mid-stream', () => {
  it('aborts the upstream call and is charged the streaming estimate', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const body = JSON.stringify({
      model: 'gpt-sim',
      messages: [{ role: 'user', content: `tell me a long story [[sim:chunkDelayMs=${CHUNK_DELAY_MS}]]` }],
      stream: true,
    });
    const abort = new AbortController();
    const start = performance.now();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${acct.key}`,
        'x-request-id': 'client-hangs-up',
      },
      body,
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const { events } = await readEvents(res, (seen) => seen.some((e) => e.data.includes('"content":"tok3 "')));
    abort.abort();
    const abortedAt = performance.now();
    expect(gw.sim.stats().inFlight).toBe(1);

    // 16 tokens at 150 ms would take ~2.7 s upstream; the gateway must let go at once.
    const releasedAfter = await waitUntil(() => gw.sim.stats().inFlight === 0, 1_000, 5);
    expect(releasedAfter).toBeLessThan(300);
    expect(abortedAt + releasedAfter - start).toBeLessThan(16 * CHUNK_DELAY_MS);

    const [record] = await waitForUsage(gw, acct.userId, 1);
    // Policy (shared/billing/estimate.ts): the upstream never reported usage, so the prompt is
    // estimated at one token per 4 bytes of the body and the output at one token per 4 bytes of the
    // text relayed (tok1..tok3: everything the client received before it hung up).
    const text = events
      .map(
        (e) => (JSON.parse(e.data) as { choices: { delta: { content?: string } }[] }).choices[0]!.delta.content ?? '',
      )
      .join('');
    expect(text).toBe('tok1 tok2 tok3 ');
    const relayed = Math.ceil(Buffer.byteLength(text) / 4);
    const inputTokens = Math.ceil(Buffer.byteLength(body) / 4);
    expect(record).toMatchObject({
      request_id: 'client-hangs-up',
      status_code: 499,
      error_code: 'client_closed',
      stream: true,
      usage_estimated: true,
      input_tokens: inputTokens,
      output_tokens: relayed,
      model: 'gpt-sim',
      provider: 'sim',
    });
    const expected = pricedMicroUsd(GPT_SIM, inputTokens, relayed);
    expect(record!.charged_micro_usd).toBe(expected);
    expect((await gw.services.balances.currentBalance(acct.userId))?.balance).toBe(1_000_000 - expected);
    const charges = await expectConsistentLedger(gw.services.db, acct.userId);
    expect(charges.map((c) => [c.request_id, c.amount_micro_usd])).toEqual([[record!.id, -expected]]);
  });

  it('a client that leaves before the first byte releases the upstream, its lease and its reservation', async () => {
    const funds = 1_000_000;
    const acct = await gw.account({ balance: funds, key: { concurrency_limit: 1 } });
    const abort = new AbortController();
    const pending = fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${acct.key}`,
        'x-request-id': 'left-early',
      },
      body: JSON.stringify({
        model: 'gpt-sim',
        messages: [{ role: 'user', content: '[[sim:latencyMs=1500]]' }],
        stream: true,
      }),
      signal: abort.signal,
    });
    await waitUntil(() => gw.sim.stats().inFlight === 1, 1_000, 5);
    abort.abort();
    await expect(pending).rejects.toThrow();

    // The upstream would answer only after 1.5 s: the gateway must not wait for it.
    expect(await waitUntil(() => gw.sim.stats().inFlight === 0, 500, 5)).toBeLessThan(300);
    const [record] = await waitForUsage(gw, acct.userId, 1);
    expect(record).toMatchObject({
      request_id: 'left-early',
      status_code: 499,
      error_code: 'client_closed',
      charged_micro_usd: 0,
    });
    expect((await gw.services.balances.currentBalance(acct.userId))?.balance).toBe(funds);
    // The key's only concurrency slot is free again.
    const next = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${acct.key}` },
      body: JSON.stringify({ model: 'gpt-sim', messages: [{ role: 'user', content: 'again' }], max_tokens: 1 }),
    });
    expect(next.status).toBe(200);
  });
});
