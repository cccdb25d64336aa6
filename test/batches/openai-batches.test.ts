// The official `openai` SDK drives files and batches end to end against the upstream simulator:
// upload, create, poll, the output file, exact charges with the model's batch discount, account
// isolation and list paging (the signed links of stored results beside `file-…` ids: test/tasks/reads.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from 'openai';
import {
  expectConsistentLedger,
  SIM_DEFAULT_COMPLETION,
  simPromptTokens,
  usersBalance,
  waitForUsage,
} from '../support/money.js';
import type { TaskGateway } from '../support/task-gateway.js';
import {
  batchLineMicroUsd,
  EMBED_PRICE,
  chatLine,
  jsonl,
  fileLines,
  openAi,
  startBatchGateway,
  uploadLines,
  waitBatchEnd,
} from './support.js';

let gw: TaskGateway;
beforeAll(async () => {
  gw = await startBatchGateway();
});
afterAll(async () => {
  await gw?.close();
});

/** The line's charge, computed independently: full price less the batch discount, rounded up once. */
function lineCharge(text: string): number {
  return batchLineMicroUsd(simPromptTokens([{ role: 'user', content: text }]), SIM_DEFAULT_COMPLETION);
}

describe('OpenAI Batch API with the official SDK', () => {
  it('uploads a file, runs a chat batch to completed, writes the output file, and charges each line once less the discount', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const client = openAi(gw, acct.key);
    // Tabs, backslashes, quotes and newlines in ids and bodies survive the way into Postgres and out (COPY escapes them).
    const texts = ['hello there', 'one\ttwo \\three "four"', 'a b c\nd e f g'];
    const ids = ['req-0', 'req\t1\\x\n"q"', 'req-2'];
    const file = await uploadLines(
      client,
      texts.map((t, i) => chatLine(ids[i]!, t)),
    );
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'input.jsonl' });
    expect(file.id).toMatch(/^file-/);
    expect(file.bytes).toBe(Buffer.byteLength(jsonl(texts.map((t, i) => chatLine(ids[i]!, t)))));
    expect(await client.files.retrieve(file.id)).toMatchObject({ id: file.id, bytes: file.bytes });

    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { job: 'nightly' },
    });
    expect(created).toMatchObject({ object: 'batch', status: 'validating', metadata: { job: 'nightly' } });
    const batch = await waitBatchEnd(client, created.id);
    expect(batch.status).toBe('completed');
    expect(batch.request_counts).toEqual({ total: 3, completed: 3, failed: 0 });
    expect(batch.error_file_id).toBeNull();
    expect(batch.in_progress_at).not.toBeNull();
    expect(batch.finalizing_at).not.toBeNull();
    expect(batch.completed_at).not.toBeNull();
    const input = texts.reduce((n, t) => n + simPromptTokens([{ role: 'user', content: t }]), 0);
    expect(batch.usage).toMatchObject({ input_tokens: input, output_tokens: 3 * SIM_DEFAULT_COMPLETION });

    const output = await fileLines(client, batch.output_file_id);
    expect(output.map((l) => l.custom_id)).toEqual(ids);
    for (const line of output) {
      expect(line.error).toBeNull();
      expect(line.id).toMatch(/^batch_req_/);
      expect(line.response).toMatchObject({
        status_code: 200,
        request_id: line.id,
        body: { object: 'chat.completion' },
      });
    }
    // The output file is a file of the account's, listed with its purpose.
    const listed = await client.files.list();
    expect(listed.data.map((f) => f.id)).toEqual(expect.arrayContaining([file.id, batch.output_file_id]));

    const records = await waitForUsage(gw, acct.userId, 3);
    const charges = await expectConsistentLedger(gw.services.db, acct.userId);
    expect(charges).toHaveLength(3);
    const byRequest = new Map(charges.map((c) => [c.request_id, -c.amount_micro_usd]));
    texts.forEach((t, i) => {
      const id = output[i].id;
      expect(byRequest.get(id)).toBe(lineCharge(t));
    });
    expect(records.map((r) => r.request_id).sort()).toEqual(output.map((l) => l.id).sort());
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(
      10_000_000 - texts.reduce((n, t) => n + lineCharge(t), 0),
    );
  });

  it('runs an embeddings batch through the embeddings engine, charged per input token less the discount', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const client = openAi(gw, acct.key);
    const lines = ['first text', ['two', 'inputs here']].map((input, i) => ({
      custom_id: `emb-${i}`,
      method: 'POST',
      url: '/v1/embeddings',
      body: { model: 'embed-sim', input },
    }));
    const file = await uploadLines(client, lines);
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/embeddings',
      completion_window: '24h',
    });
    const batch = await waitBatchEnd(client, created.id);
    expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 2, failed: 0 } });
    const output = await fileLines(client, batch.output_file_id);
    expect(output[0].response.body).toMatchObject({
      object: 'list',
      model: 'embed-sim',
      data: [{ object: 'embedding', index: 0 }],
    });
    expect(output[1].response.body.data).toHaveLength(2);
    await waitForUsage(gw, acct.userId, 2);
    const charges = await expectConsistentLedger(gw.services.db, acct.userId);
    for (const line of output) {
      const tokens = line.response.body.usage.prompt_tokens as number;
      const expected = batchLineMicroUsd(tokens, 0, { input_per_mtok: EMBED_PRICE, output_per_mtok: 0 });
      expect(-charges.find((c) => c.request_id === line.id)!.amount_micro_usd).toBe(expected);
    }
    expect(batch.usage!.input_tokens).toBe(output.reduce((n, l) => n + l.response.body.usage.prompt_tokens, 0));
  });

  it("another account's files and batches answer 404; lists show only the account's own, paged", async () => {
    const owner = await gw.account({ balance: 1_000_000 });
    const other = await gw.account({ balance: 1_000_000 });
    const mine = openAi(gw, owner.key);
    const theirs = openAi(gw, other.key);
    const file = await uploadLines(mine, [chatLine('only', 'hi')]);
    const a = await mine.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const b = await mine.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    await expect(theirs.files.retrieve(file.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(theirs.files.content(file.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(theirs.files.delete(file.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(theirs.batches.retrieve(a.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(theirs.batches.cancel(a.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      theirs.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect((await theirs.files.list()).data).toEqual([]);
    expect((await theirs.batches.list()).data).toEqual([]);

    const first = await mine.batches.list({ limit: 1 });
    expect(first.data.map((x) => x.id)).toEqual([b.id]);
    expect(first.has_more).toBe(true);
    const second = await mine.batches.list({ limit: 1, after: b.id });
    expect(second.data.map((x) => x.id)).toEqual([a.id]);
    expect(second.has_more).toBe(false);
    for (const id of [a.id, b.id]) expect((await waitBatchEnd(mine, id)).status).toBe('completed');

    const deleted = await mine.files.delete(file.id);
    expect(deleted).toMatchObject({ id: file.id, object: 'file', deleted: true });
    await expect(mine.files.retrieve(file.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});
