import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';
import {
  drained,
  expectConsistentLedger,
  pricedMicroUsd,
  simPromptTokens,
  usageRecords,
  usersBalance,
} from '../support/money.js';
import { startApisBeside, type ApiProcess, type ApisBeside } from '../support/processes.js';

// Reservations bounded by a real token count: a cap or balance admits about as many concurrent
// calls as it can pay for (it used to admit one call per several kilobytes of JSON).
const GPT_SIM = { input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 };
const REQUEST = chatRequest('gpt-sim', '[[sim:latencyMs=400]] a short question', { max_tokens: 16 });
const COST = pricedMicroUsd(GPT_SIM, simPromptTokens(REQUEST.messages as { role: string; content: string }[]), 16);

let gw: TestGateway;
let beside: ApisBeside;
let apis: ApiProcess[] = [];
beforeAll(async () => {
  gw = await startTestGateway();
  beside = await startApisBeside(gw, 2);
  apis = beside.apis;
});
afterAll(async () => {
  await beside?.stop();
  await gw?.close();
});

describe('reservations that fit the call', () => {
  it('a key whose total cap pays for five calls admits 1-5 of 50 concurrent ones, and never spends past the cap', async () => {
    const acct = await gw.account({ balance: 10_000_000, key: { total_micro_usd: 5 * COST } });
    const replies = await Promise.all(Array.from({ length: 50 }, () => postChat(gw.url, acct.key, REQUEST)));
    const admitted = replies.filter((r) => r.status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(1);
    expect(admitted).toBeLessThanOrEqual(5);
    expect(replies.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    await drained(gw);
    const spent = (await usageRecords(gw.services.db, acct.userId)).reduce((sum, r) => sum + r.charged_micro_usd, 0);
    expect(spent).toBe(admitted * COST);
    expect(spent).toBeLessThanOrEqual(5 * COST);
  });

  it('a balance that pays for ten calls admits at least five of 100 racing over two API processes, and never goes below zero', async () => {
    const acct = await gw.account({ balance: 10 * COST });
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => postChat(apis[i % 2]!.url, acct.key, REQUEST)),
    );
    const admitted = replies.filter((r) => r.status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(5);
    expect(admitted).toBeLessThanOrEqual(10);
    expect(replies.filter((r) => r.status !== 200).every((r) => r.status === 402)).toBe(true);
    await drained(gw, 10_000);
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(10 * COST - admitted * COST);
    await expectConsistentLedger(gw.services.db, acct.userId);
  });

  it('a refusal for money says how many output tokens what is left covers; asking for that many is admitted', async () => {
    const acct = await gw.account({ balance: 10_000_000, key: { total_micro_usd: 400 } });
    const greedy = await postChat(gw.url, acct.key, chatRequest('gpt-sim', 'hello', { max_tokens: 1000 }));
    expect(greedy.status).toBe(429);
    const error = (JSON.parse(greedy.text) as { error: { code: string; message: string; param: string } }).error;
    expect(error).toMatchObject({ code: 'quota_exceeded', param: 'max_tokens' });
    const covers = Number(/covers (\d+)/.exec(error.message)?.[1]);
    expect(covers).toBeGreaterThan(0);
    expect(covers).toBeLessThan(1000);
    expect((await postChat(gw.url, acct.key, chatRequest('gpt-sim', 'hello', { max_tokens: covers }))).status).toBe(
      200,
    );
  });
});
