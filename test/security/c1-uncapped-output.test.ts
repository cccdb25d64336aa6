import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerSum } from '../../shared/db/ledger.js';
import { usageOverReservation } from '../../workers/metrics.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';
import { drained, expectConsistentLedger, pricedMicroUsd, usageRecords, usersBalance } from '../support/money.js';

// Issue 27, C1: the charge was capped at the reservation, but the upstream was not held to what was
// reserved. `n` and candidateCount passed unpriced, no cap was written when the client sent none,
// and an upstream deaf to max_completion_tokens ran to its own default — all for one answer's price.

// 1 µUSD an input token, 10 an output token; an answer is reserved for at most 100 output tokens.
const PRICE = { input_per_mtok: 1_000_000, output_per_mtok: 10_000_000 };
// What each simulated upstream says when nobody stops it.
const LONG = 4_000;

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    sim: {
      models: {
        'up-chat': { outputTokens: LONG },
        'up-gemini': { outputTokens: LONG },
        'up-claude': { outputTokens: LONG },
        // An older OpenAI-compatible server: reads max_tokens only.
        'up-old': { outputTokens: LONG, ignoresMaxCompletionTokens: true },
      },
    },
    catalog: (url) => ({
      providers: [
        { id: 'sim', protocol: 'openai', base_url: `${url}/v1`, api_key: 'k' },
        { id: 'sim-old', protocol: 'openai', base_url: `${url}/v1`, api_key: 'k' },
        { id: 'sim-old-mt', protocol: 'openai', base_url: `${url}/v1`, api_key: 'k', max_tokens_field: 'max_tokens' },
        { id: 'sim-gemini', protocol: 'gemini', base_url: url, api_key: 'k' },
        { id: 'sim-anthropic', protocol: 'anthropic', base_url: url, api_key: 'k' },
      ],
      models: [
        {
          id: 'c1-chat',
          endpoints: ['chat/completions'],
          routes: [{ provider: 'sim', upstream_model: 'up-chat' }],
          pricing: PRICE,
          max_output_tokens: 100,
        },
        {
          id: 'c1-gemini',
          endpoints: ['chat/completions'],
          routes: [{ provider: 'sim-gemini', upstream_model: 'up-gemini' }],
          pricing: PRICE,
          max_output_tokens: 100,
        },
        {
          id: 'c1-claude',
          endpoints: ['chat/completions'],
          routes: [{ provider: 'sim-anthropic', upstream_model: 'up-claude' }],
          pricing: PRICE,
          max_output_tokens: 100,
        },
        {
          id: 'c1-old',
          endpoints: ['chat/completions'],
          routes: [{ provider: 'sim-old', upstream_model: 'up-old' }],
          pricing: PRICE,
          max_output_tokens: 100,
        },
        {
          id: 'c1-old-mt',
          endpoints: ['chat/completions'],
          routes: [{ provider: 'sim-old-mt', upstream_model: 'up-old' }],
          pricing: PRICE,
          max_output_tokens: 100,
        },
      ],
      groups: [{ id: 'default', models: ['*'] }],
    }),
  });
});
afterAll(() => gw.close());

const upstreamBody = () => gw.sim.stats().lastRequestBody as Record<string, unknown>;
const upstreamCalls = () => gw.sim.stats().requests;

/** The account's records, drained, each checked to be charged exactly the list price of what it delivered. */
async function listPriced(userId: string) {
  await drained(gw);
  const records = (await usageRecords(gw.services.db, userId)).filter((r) => r.status_code === 200);
  for (const r of records)
    expect(r.charged_micro_usd, r.request_id).toBe(pricedMicroUsd(PRICE, r.input_tokens, r.output_tokens));
  expect(await ledgerSum(gw.services.db, userId)).toBe(await usersBalance(gw.services.db, userId));
  await expectConsistentLedger(gw.services.db, userId);
  return records;
}

async function postContent(key: string, model: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${gw.url}/v1beta/models/${model}:generateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

async function postMessages(key: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${gw.url}/native-messages/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

const overCount = async () => (await usageOverReservation.get()).values[0]?.value ?? 0;

describe('C1: no answer larger than its charge', () => {
  it('n answers are each held to the cap, reserved together and charged their list price', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const res = await postChat(
      gw.url,
      acct.key,
      chatRequest('c1-chat', 'many answers please', { n: 50, max_tokens: 100 }),
    );
    expect(res.status, res.text).toBe(200);
    expect((JSON.parse(res.text) as { choices: unknown[] }).choices).toHaveLength(50);
    expect(upstreamBody()).toMatchObject({ n: 50, max_tokens: 100 });
    const [record] = await listPriced(acct.userId);
    expect(record).toMatchObject({ output_tokens: 5_000, over_reservation: false });
    expect(record!.charged_micro_usd).toBeGreaterThan(50_000);

    // A balance that covers one answer does not cover fifty: refused before the upstream hears of it.
    const poor = await gw.account({ balance: 5_000 });
    const before = upstreamCalls();
    const refused = await postChat(
      gw.url,
      poor.key,
      chatRequest('c1-chat', 'many answers please', { n: 50, max_tokens: 100 }),
    );
    expect(refused.status, refused.text).toBe(402);
    expect(upstreamCalls()).toBe(before);
  });

  it('generateContent candidates are reserved and charged alike', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const res = await postContent(acct.key, 'c1-gemini', {
      contents: [{ role: 'user', parts: [{ text: 'three ways' }] }],
      generationConfig: { candidateCount: 3 },
    });
    expect(res.status, res.text).toBe(200);
    expect(upstreamBody()).toMatchObject({ generationConfig: { candidateCount: 3, maxOutputTokens: 100 } });
    const [record] = await listPriced(acct.userId);
    expect(record).toMatchObject({ output_tokens: 300, over_reservation: false });
  });

  it("a call without a cap is held to the model's max_output_tokens, whatever the protocols", async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    expect((await postChat(gw.url, acct.key, chatRequest('c1-chat', 'no cap'))).status).toBe(200);
    expect(upstreamBody()).toMatchObject({ max_completion_tokens: 100 });
    expect(upstreamBody()).not.toHaveProperty('max_tokens');
    const stream = await postChat(gw.url, acct.key, chatRequest('c1-chat', 'no cap either', { stream: true }));
    expect(stream.status).toBe(200);
    expect(upstreamBody()).toMatchObject({ max_completion_tokens: 100 });
    expect(
      (await postContent(acct.key, 'c1-gemini', { contents: [{ role: 'user', parts: [{ text: 'no cap' }] }] })).status,
    ).toBe(200);
    expect(upstreamBody()).toMatchObject({ generationConfig: { maxOutputTokens: 100 } });
    // Translated: chat completions to a generateContent upstream.
    expect((await postChat(gw.url, acct.key, chatRequest('c1-gemini', 'no cap, translated'))).status).toBe(200);
    expect(upstreamBody()).toMatchObject({ generationConfig: { maxOutputTokens: 100 } });
    const records = await listPriced(acct.userId);
    expect(records.map((r) => r.output_tokens)).toEqual([100, 100, 100, 100]);
  });

  it('an upstream that delivers more than was reserved is charged its list price from the balance, flagged and counted', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const counted = await overCount();
    // Several calls in a row: the first is decided in Redis, later ones may be admitted from a grant.
    for (let i = 0; i < 4; i++) {
      const res = await postChat(
        gw.url,
        acct.key,
        chatRequest('c1-old', `only one token ${i}`, { max_completion_tokens: 1 }),
      );
      expect(res.status, res.text).toBe(200);
      // Written in the field the client used: this server does not read it, and answers at length.
      expect(upstreamBody()).toMatchObject({ max_completion_tokens: 1 });
    }
    // The later calls were admitted from a grant held in process (shared/limits/grants.ts).
    const holds = await gw.services.redis.hgetall(gw.services.redisKeys.reservations(acct.userId));
    expect(Object.keys(holds).some((id) => id.startsWith('grant_'))).toBe(true);
    const records = await listPriced(acct.userId);
    expect(records).toHaveLength(4);
    for (const r of records) expect(r).toMatchObject({ output_tokens: LONG, over_reservation: true });
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(
      10_000_000 - records.reduce((s, r) => s + r.charged_micro_usd, 0),
    );
    expect((await gw.services.balances.currentBalance(acct.userId))?.balance).toBe(
      await usersBalance(gw.services.db, acct.userId),
    );
    expect(await overCount()).toBe(counted + 4);
  });

  it('the excess is charged as far as the balance goes, never below zero', async () => {
    const funds = 3_000;
    const acct = await gw.account({ balance: funds });
    const res = await postChat(gw.url, acct.key, chatRequest('c1-old', 'just one', { max_completion_tokens: 1 }));
    expect(res.status, res.text).toBe(200);
    await drained(gw);
    const [record] = await usageRecords(gw.services.db, acct.userId);
    expect(record).toMatchObject({ output_tokens: LONG, over_reservation: true, charged_micro_usd: funds });
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(0);
    expect((await gw.services.balances.currentBalance(acct.userId))?.balance).toBe(0);
    await expectConsistentLedger(gw.services.db, acct.userId);
  });

  it('a provider that reads max_tokens gets the cap there', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    expect(
      (await postChat(gw.url, acct.key, chatRequest('c1-old-mt', 'just one', { max_completion_tokens: 1 }))).status,
    ).toBe(200);
    expect(upstreamBody()).toMatchObject({ max_tokens: 1 });
    expect(upstreamBody()).not.toHaveProperty('max_completion_tokens');
    expect((await postChat(gw.url, acct.key, chatRequest('c1-old-mt', 'no cap'))).status).toBe(200);
    expect(upstreamBody()).toMatchObject({ max_tokens: 100 });
    const records = await listPriced(acct.userId);
    expect(records.map((r) => [r.output_tokens, r.over_reservation])).toEqual([
      [1, false],
      [100, false],
    ]);
  });

  it('billable options without a price are refused by name before anything is reserved, or removed', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const before = upstreamCalls();
    const chatRefusals: [Record<string, unknown>, string][] = [
      [{ modalities: ['text', 'audio'] }, 'modalities'],
      [{ audio: { voice: 'alloy', format: 'wav' } }, 'audio'],
      [{ web_search_options: {} }, 'web_search_options'],
      [
        { tools: [{ type: 'function', function: { name: 'f', parameters: {} } }, { type: 'web_search_preview' }] },
        'tools[1].type',
      ],
      [
        {
          messages: [
            { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] },
          ],
        },
        'messages[0].content[0].type',
      ],
    ];
    for (const [extra, param] of chatRefusals) {
      const res = await postChat(gw.url, acct.key, chatRequest('c1-chat', 'hi', extra));
      expect(res.status, param).toBe(400);
      expect(JSON.parse(res.text).error).toMatchObject({ code: 'unsupported_parameter', param });
    }
    const messages = await postMessages(acct.key, {
      model: 'c1-claude',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
    });
    expect(messages.status).toBe(400);
    expect(JSON.parse(messages.text)).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', param: 'tools[0].type' },
    });
    for (const [extra, field] of [
      [{ tools: [{ googleSearch: {} }] }, 'tools[0].googleSearch'],
      [{ generationConfig: { responseModalities: ['AUDIO'] } }, 'generationConfig.responseModalities'],
    ] as const) {
      const res = await postContent(acct.key, 'c1-gemini', {
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
        ...extra,
      });
      expect(res.status, field).toBe(400);
      expect(JSON.parse(res.text).error.details[0].metadata.field).toBe(field);
    }
    expect(upstreamCalls()).toBe(before);

    // A service tier only changes the upstream's bill: it is removed, the call runs at the default tier.
    expect(
      (await postChat(gw.url, acct.key, chatRequest('c1-chat', 'hi', { service_tier: 'priority', max_tokens: 5 })))
        .status,
    ).toBe(200);
    expect(upstreamBody()).not.toHaveProperty('service_tier');
    expect(
      (
        await postMessages(acct.key, {
          model: 'c1-claude',
          max_tokens: 5,
          service_tier: 'auto',
          messages: [{ role: 'user', content: 'hi' }],
        })
      ).status,
    ).toBe(200);
    expect(upstreamBody()).not.toHaveProperty('service_tier');
    await drained(gw);
    const records = await usageRecords(gw.services.db, acct.userId);
    expect(records.filter((r) => r.status_code === 400).every((r) => r.charged_micro_usd === 0)).toBe(true);
  });
});
