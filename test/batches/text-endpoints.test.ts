// `/v1/responses` and `/v1/messages` as Batch API endpoints, driven by the official `openai` SDK
// (files.create, batches.create / retrieve, files.content) against a chat-completions upstream: each
// line answered in its endpoint's own shape (a failed line with that endpoint's error body), and
// charged exactly what the same synchronous call costs less the model's batch discount — the
// synchronous calls made beside, on another account, and both prices computed here from the
// simulator's token rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectConsistentLedger,
  pricedMicroUsd,
  SIM_DEFAULT_COMPLETION,
  simPromptTokens,
  waitForUsage,
} from '../support/money.js';
import type { TaskGateway } from '../support/task-gateway.js';
import { batchLineMicroUsd, fileLines, openAi, PRICE, runBatch, startBatchGateway } from './support.js';

let gw: TaskGateway;
beforeAll(async () => {
  gw = await startBatchGateway();
});
afterAll(async () => {
  await gw?.close();
});

const SYSTEM = 'Be brief.';
const TEXTS = ['hello there', 'one two three four'];

interface EndpointCase {
  endpoint: '/v1/responses' | '/v1/messages';
  body(text: string, model?: string): Record<string, unknown>;
  /** The same call made synchronously: its answer's JSON. */
  call(key: string, body: Record<string, unknown>): Promise<Response>;
  /** An answer of the endpoint, as its clients read it. */
  answered: Record<string, unknown>;
  usage(body: Record<string, unknown>): { input: number; output: number };
  /** The endpoint's error body for an unknown model. */
  unknownModel: Record<string, unknown>;
}

const post = (path: string, headers: Record<string, string>, body: unknown) =>
  fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const CASES: EndpointCase[] = [
  {
    endpoint: '/v1/responses',
    body: (text, model = 'gpt-sim') => ({ model, input: text, instructions: SYSTEM }),
    call: (key, body) => post('/v1/responses', { authorization: `Bearer ${key}` }, body),
    answered: {
      object: 'response',
      status: 'completed',
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text' }] }],
    },
    usage: (b) => {
      const u = b.usage as { input_tokens: number; output_tokens: number };
      return { input: u.input_tokens, output: u.output_tokens };
    },
    unknownModel: { error: { code: 'model_not_found', type: 'invalid_request_error' } },
  },
  {
    endpoint: '/v1/messages',
    body: (text, model = 'gpt-sim') => ({
      model,
      max_tokens: 50,
      system: SYSTEM,
      messages: [{ role: 'user', content: text }],
    }),
    call: (key, body) => post('/v1/messages', { 'x-api-key': key, 'anthropic-version': '2023-06-01' }, body),
    answered: { type: 'message', role: 'assistant', content: [{ type: 'text' }], stop_reason: 'end_turn' },
    usage: (b) => {
      const u = b.usage as { input_tokens: number; output_tokens: number };
      return { input: u.input_tokens, output: u.output_tokens };
    },
    unknownModel: { type: 'error', error: { type: 'not_found_error' } },
  },
];

describe('Responses and Messages lines through the openai SDK', () => {
  for (const c of CASES) {
    it(`${c.endpoint}: each line in the endpoint's shape, charged as the synchronous call less the discount`, async () => {
      const acct = await gw.account({ balance: 10_000_000 });
      const client = openAi(gw, acct.key);
      const lines = [
        ...TEXTS.map((text, i) => ({ custom_id: `line-${i}`, method: 'POST', url: c.endpoint, body: c.body(text) })),
        { custom_id: 'unknown', method: 'POST', url: c.endpoint, body: c.body('hi', 'no-such-model') },
      ];
      const batch = await runBatch(client, lines, c.endpoint);
      expect(batch).toMatchObject({
        status: 'completed',
        endpoint: c.endpoint,
        request_counts: { total: 3, completed: 2, failed: 1 },
      });

      // The simulator's rule, from the words the call sends: the system text and the user's.
      const expected = TEXTS.map((text) => ({
        input: simPromptTokens([
          { role: 'system', content: SYSTEM },
          { role: 'user', content: text },
        ]),
        output: SIM_DEFAULT_COMPLETION,
      }));
      const output = await fileLines(client, batch.output_file_id);
      expect(output.map((l) => l.custom_id)).toEqual(['line-0', 'line-1']);
      output.forEach((line, i) => {
        expect(line).toMatchObject({ error: null, response: { status_code: 200, request_id: line.id } });
        expect(line.response.body).toMatchObject(c.answered);
        expect(c.usage(line.response.body)).toEqual(expected[i]);
      });
      const [failed] = await fileLines(client, batch.error_file_id);
      expect(failed).toMatchObject({ custom_id: 'unknown', error: null, response: { status_code: 404 } });
      expect(failed.response.body).toMatchObject(c.unknownModel);
      expect(batch.usage).toMatchObject({
        input_tokens: expected[0]!.input + expected[1]!.input,
        output_tokens: 2 * SIM_DEFAULT_COMPLETION,
      });

      // The same calls, synchronously, on an account of their own: the full price.
      const sync = await gw.account({ balance: 10_000_000 });
      for (const text of TEXTS) {
        const res = await c.call(sync.key, c.body(text));
        expect(res.status).toBe(200);
        expect(c.usage((await res.json()) as Record<string, unknown>)).toEqual(expected[TEXTS.indexOf(text)]);
      }
      await waitForUsage(gw, sync.userId, 2);
      const syncCharges = (await expectConsistentLedger(gw.services.db, sync.userId)).map((r) => -r.amount_micro_usd);
      expect(syncCharges).toEqual(expected.map((t) => pricedMicroUsd(PRICE, t.input, t.output)));

      // The batch's lines: that price less the discount, each once; the failed line nothing.
      await waitForUsage(gw, acct.userId, 2);
      const charges = await expectConsistentLedger(gw.services.db, acct.userId);
      const byLine = new Map(charges.map((r) => [r.request_id, -r.amount_micro_usd]));
      expect(byLine).toEqual(
        new Map(output.map((l, i) => [l.id, batchLineMicroUsd(expected[i]!.input, expected[i]!.output)])),
      );
    });
  }
});
