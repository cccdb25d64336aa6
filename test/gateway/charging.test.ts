import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerSum } from '../../shared/db/ledger.js';
import { testCatalog } from '../support/catalog.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { postChat, type Message } from '../support/http.js';
import {
  drained,
  expectConsistentLedger,
  ledgerRows,
  pricedMicroUsd,
  SIM_DEFAULT_COMPLETION,
  simPromptTokens,
  usageRecords,
  usersBalance,
  type Price,
} from '../support/money.js';

// Prices with fractions of a micro-USD per token, so rounding each part would differ from
// rounding the call once (e.g. 9 in + 7 out: ceil(11.25) + ceil(23.33) = 36, once: 35).
const ODD: Price = { input_per_mtok: 1_250_001, output_per_mtok: 3_333_333, per_request: 100 };
const GPT_SIM: Price = { input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 };
const PRICES: Record<string, Price> = { 'gpt-sim': GPT_SIM, 'odd-sim': ODD };

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    catalog: (url) => {
      const base = testCatalog(url);
      const odd = {
        id: 'odd-sim',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'sim', upstream_model: 'sim-model' }],
        pricing: ODD,
        max_output_tokens: 500,
      };
      return { ...base, models: [...base.models, odd] };
    },
  });
});
afterAll(() => gw.close());

interface Call {
  id: string;
  model: string;
  messages: Message[];
  extra?: Record<string, unknown>;
  /** Completion tokens the simulator will produce. */
  completion: number;
}

const SYSTEM: Message = { role: 'system', content: 'You answer briefly.' };
const CALLS: Call[] = [
  {
    id: 'plain',
    model: 'gpt-sim',
    messages: [SYSTEM, { role: 'user', content: 'hello there friend' }],
    completion: SIM_DEFAULT_COMPLETION,
  },
  {
    id: 'stream',
    model: 'gpt-sim',
    messages: [{ role: 'user', content: 'stream it' }],
    extra: { stream: true },
    completion: SIM_DEFAULT_COMPLETION,
  },
  {
    id: 'odd-max7',
    model: 'odd-sim',
    messages: [{ role: 'user', content: 'x' }],
    extra: { max_tokens: 7 },
    completion: 7,
  },
  {
    id: 'odd-stream-max33',
    model: 'odd-sim',
    messages: [SYSTEM, { role: 'user', content: 'a b c d e f [[sim:naturalLength=false]]' }],
    extra: { stream: true, max_tokens: 33, stream_options: { include_usage: true } },
    completion: 33,
  },
  {
    id: 'max-completion-5',
    model: 'gpt-sim',
    messages: [{ role: 'user', content: 'short' }],
    extra: { max_completion_tokens: 5 },
    completion: 5,
  },
  {
    id: 'odd-default',
    model: 'odd-sim',
    messages: [{ role: 'user', content: 'one two three four five six' }],
    completion: SIM_DEFAULT_COMPLETION,
  },
];

const expectedCost = (c: Call) => pricedMicroUsd(PRICES[c.model]!, simPromptTokens(c.messages), c.completion);

describe('charges', () => {
  it('the independent arithmetic rounds once per call', () => {
    expect(pricedMicroUsd({ input_per_mtok: 1_250_001, output_per_mtok: 3_333_333 }, 9, 7)).toBe(35);
    expect(pricedMicroUsd(ODD, 9, 7)).toBe(135);
    expect(pricedMicroUsd(GPT_SIM, 15, 16)).toBe(158);
  });

  it('balance before − after is exactly the priced usage of every call', async () => {
    const funds = 5_000_000;
    const acct = await gw.account({ balance: funds });
    for (const c of CALLS) {
      const res = await postChat(
        gw.url,
        acct.key,
        { model: c.model, messages: c.messages, ...c.extra },
        { 'x-request-id': `charge-${c.id}` },
      );
      expect(res.status, res.text).toBe(200);
    }
    await drained(gw);
    const records = await usageRecords(gw.services.db, acct.userId);
    expect(records).toHaveLength(CALLS.length);
    for (const c of CALLS) {
      const row = records.find((r) => r.request_id === `charge-${c.id}`)!;
      expect(row, c.id).toMatchObject({
        model: c.model,
        status_code: 200,
        usage_estimated: false,
        input_tokens: simPromptTokens(c.messages),
        output_tokens: c.completion,
        charged_micro_usd: expectedCost(c),
      });
    }
    const total = CALLS.reduce((sum, c) => sum + expectedCost(c), 0);
    expect((await gw.services.balances.currentBalance(acct.userId))?.balance).toBe(funds - total);
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(funds - total);

    const charges = await expectConsistentLedger(gw.services.db, acct.userId);
    expect(charges.map((r) => [r.request_id, -r.amount_micro_usd]).sort()).toEqual(
      records.map((r) => [r.id, r.charged_micro_usd]).sort(),
    );
  });

  it('the ledger sum equals the balance in users after concurrent calls', async () => {
    const funds = 1_000_000;
    const acct = await gw.account({ balance: funds });
    const calls = Array.from({ length: 12 }, (_, i) => CALLS[i % CALLS.length]!);
    const results = await Promise.all(
      calls.map((c) => postChat(gw.url, acct.key, { model: c.model, messages: c.messages, ...c.extra })),
    );
    expect(results.map((r) => r.status)).toEqual(calls.map(() => 200));
    await drained(gw);
    const total = calls.reduce((sum, c) => sum + expectedCost(c), 0);
    expect(await ledgerSum(gw.services.db, acct.userId)).toBe(funds - total);
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(funds - total);
    expect(await expectConsistentLedger(gw.services.db, acct.userId)).toHaveLength(calls.length);
  });

  it('a free model charges nothing and writes no charge row', async () => {
    const acct = await gw.account({ balance: 1_000 });
    const res = await postChat(gw.url, acct.key, { model: 'free-sim', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    await drained(gw);
    expect((await usageRecords(gw.services.db, acct.userId)).map((r) => r.charged_micro_usd)).toEqual([0]);
    expect((await ledgerRows(gw.services.db, acct.userId)).map((r) => r.kind)).toEqual(['credit']);
  });
});
