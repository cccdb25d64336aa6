// Anthropic's Message Batches with the official @anthropic-ai/sdk, unchanged, under both prefixes
// of the Messages surface: create with inline requests, retrieve until ended, list, results as
// JSONL (succeeded and errored), cancel (canceled results), exact charges less the batch
// discount, another account's batch answering 404.
import Anthropic, { NotFoundError, BadRequestError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/http.js';
import { drained, expectConsistentLedger } from '../support/money.js';
import type { TaskGateway } from '../support/task-gateway.js';
import { batchLineMicroUsd, startBatchGateway } from './support.js';

let gw: TaskGateway;
beforeAll(async () => {
  gw = await startBatchGateway({ env: { BATCH_CONCURRENCY: '2' } });
});
afterAll(async () => {
  await gw?.close();
});

const client = (key: string, prefix = '/native-messages') =>
  new Anthropic({ apiKey: key, baseURL: `${gw.url}${prefix}`, maxRetries: 0 });

const params = (text: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-sim',
  max_tokens: 20,
  messages: [{ role: 'user' as const, content: text }],
  ...extra,
});

async function ended(c: Anthropic, id: string) {
  let batch = await c.messages.batches.retrieve(id);
  await waitUntil(
    async () => (batch = await c.messages.batches.retrieve(id)).processing_status === 'ended',
    60_000,
    100,
  );
  return batch;
}

async function results(c: Anthropic, id: string) {
  const out: Anthropic.Messages.MessageBatchIndividualResponse[] = [];
  for await (const r of await c.messages.batches.results(id)) out.push(r);
  return out;
}

describe('Message Batches with the official @anthropic-ai/sdk', () => {
  for (const prefix of ['/native-messages', '']) {
    it(`runs a batch to ended with succeeded and errored results (prefix '${prefix || '/v1'}')`, async () => {
      const acct = await gw.account({ balance: 5_000_000 });
      const c = client(acct.key, prefix);
      const created = await c.messages.batches.create({
        requests: [
          { custom_id: 'first', params: params('hello there') },
          { custom_id: 'second', params: params('unknown', { model: 'no-such-model' }) },
          { custom_id: 'third', params: params('one two three') },
        ],
      });
      expect(created).toMatchObject({
        type: 'message_batch',
        processing_status: 'in_progress',
        results_url: null,
        request_counts: { processing: 3, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
      });
      expect(created.id).toMatch(/^msgbatch_/);
      const batch = await ended(c, created.id);
      expect(batch.request_counts).toEqual({ processing: 0, succeeded: 2, errored: 1, canceled: 0, expired: 0 });
      expect(batch.ended_at).not.toBeNull();
      expect(batch.results_url).toBe(`${gw.url}${prefix || ''}/v1/messages/batches/${batch.id}/results`);
      const out = await results(c, batch.id);
      expect(out.map((r) => [r.custom_id, r.result.type])).toEqual([
        ['first', 'succeeded'],
        ['second', 'errored'],
        ['third', 'succeeded'],
      ]);
      const first = out[0]!.result as Anthropic.Messages.MessageBatchSucceededResult;
      expect(first.message).toMatchObject({ type: 'message', role: 'assistant' });
      const errored = out[1]!.result as Anthropic.Messages.MessageBatchErroredResult;
      expect(errored.error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });

      // Each succeeded line is charged once, less the batch discount, from the usage the answer reports.
      await drained(gw, 10_000);
      const charges = await expectConsistentLedger(gw.services.db, acct.userId);
      expect(charges).toHaveLength(2);
      for (const r of out.filter((x) => x.result.type === 'succeeded')) {
        const usage = (r.result as Anthropic.Messages.MessageBatchSucceededResult).message.usage;
        const expected = batchLineMicroUsd(usage.input_tokens, usage.output_tokens);
        expect(charges.map((ch) => -ch.amount_micro_usd)).toContain(expected);
      }
    });
  }

  it('lists newest first with paging, refuses bad params naming the request, hides other accounts', async () => {
    const acct = await gw.account({ balance: 5_000_000 });
    const other = await gw.account({ balance: 5_000_000 });
    const c = client(acct.key);
    const a = await c.messages.batches.create({ requests: [{ custom_id: 'a', params: params('hi') }] });
    const b = await c.messages.batches.create({ requests: [{ custom_id: 'b', params: params('hi') }] });
    const page = await c.messages.batches.list({ limit: 1 });
    expect(page.data.map((x) => x.id)).toEqual([b.id]);
    expect(page.has_more).toBe(true);
    const all: string[] = [];
    for await (const x of c.messages.batches.list({ limit: 1 })) all.push(x.id);
    expect(all).toEqual([b.id, a.id]);

    const refused = await c.messages.batches
      .create({
        requests: [
          { custom_id: 'ok', params: params('hi') },
          { custom_id: 'bad', params: { model: 'gpt-sim' } as never },
        ],
      })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(JSON.stringify((refused as BadRequestError).error)).toContain('requests[1].params');
    const duplicate = await c.messages.batches
      .create({
        requests: [
          { custom_id: 'x', params: params('hi') },
          { custom_id: 'x', params: params('hi') },
        ],
      })
      .catch((err: unknown) => err);
    expect(duplicate).toBeInstanceOf(BadRequestError);

    const theirs = client(other.key);
    await expect(theirs.messages.batches.retrieve(a.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(theirs.messages.batches.cancel(a.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await theirs.messages.batches.list()).data).toEqual([]);
    // A message batch is not a Batch API batch, and the other way round.
    const res = await fetch(`${gw.url}/v1/batches/${a.id}`, { headers: { authorization: `Bearer ${acct.key}` } });
    expect(res.status).toBe(404);
    for (const id of [a.id, b.id]) await ended(c, id);
  });

  it('cancel: canceling, then ended with the requests not run as canceled results', async () => {
    const acct = await gw.account({ balance: 5_000_000 });
    const c = client(acct.key);
    const requests = Array.from({ length: 12 }, (_, i) => ({
      custom_id: `r${i}`,
      params: params(`slow [[sim:latencyMs=400]] ${i}`),
    }));
    const created = await c.messages.batches.create({ requests });
    await waitUntil(
      async () => (await c.messages.batches.retrieve(created.id)).request_counts.succeeded >= 1,
      30_000,
      50,
    );
    const canceling = await c.messages.batches.cancel(created.id);
    expect(canceling.processing_status).toBe('canceling');
    expect(canceling.cancel_initiated_at).not.toBeNull();
    const batch = await ended(c, created.id);
    const { succeeded, canceled } = batch.request_counts;
    expect(succeeded + canceled).toBe(12);
    expect(canceled).toBeGreaterThan(0);
    const out = await results(c, batch.id);
    expect(out.filter((r) => r.result.type === 'canceled')).toHaveLength(canceled);
    await drained(gw, 10_000);
    expect(await expectConsistentLedger(gw.services.db, acct.userId)).toHaveLength(succeeded);
  });
});
