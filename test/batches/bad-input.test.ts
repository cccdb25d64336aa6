// Bad input at the right level: the upload (not multipart, no purpose, over the byte or line
// limit), the batch (a malformed line, a duplicate custom_id, another endpoint's url, a body its
// endpoint refuses, a line longer than a synchronous body may be: `failed` with errors.data naming
// the lines), or the one line (an unknown model: that line in the error file with its code, nothing
// charged). The key's limits and money, line by line: line-limits.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, toFile } from 'openai';
import { drained, expectConsistentLedger } from '../support/money.js';
import type { TaskGateway } from '../support/task-gateway.js';
import { chatLine, fileLines, openAi, runBatch, startBatchGateway, uploadLines } from './support.js';

/** The synchronous body limit here: a line longer than this is refused. */
const BODY_LIMIT = 1024;
let gw: TaskGateway;
beforeAll(async () => {
  gw = await startBatchGateway({
    env: { BATCH_FILE_MAX_BYTES: '4096', BATCH_FILE_MAX_LINES: '20', BODY_LIMIT_BYTES: String(BODY_LIMIT) },
  });
});
afterAll(async () => {
  await gw?.close();
});

async function upload(key: string, body: FormData) {
  const res = await fetch(`${gw.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body });
  return {
    status: res.status,
    json: (await res.json()) as { error: { code: string; param: string | null; message: string } },
  };
}

function form(text: string, purpose?: string): FormData {
  const data = new FormData();
  data.append('file', new Blob([text]), 'in.jsonl');
  if (purpose !== undefined) data.append('purpose', purpose);
  return data;
}

describe('bad input', () => {
  it('refuses uploads at the upload: purpose missing or wrong, over the byte limit, over the line limit, not multipart', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const line = JSON.stringify(chatLine('a', 'hi'));
    expect((await upload(acct.key, form(line))).json.error).toMatchObject({ param: 'purpose' });
    expect((await upload(acct.key, form(line, 'fine-tune'))).json.error).toMatchObject({ param: 'purpose' });
    const big = await upload(acct.key, form('x'.repeat(5000), 'batch'));
    expect(big.status).toBe(413);
    expect(big.json.error).toMatchObject({ code: 'body_too_large', param: 'file' });
    const many = await upload(acct.key, form(`${line}\n`.repeat(21), 'batch'));
    expect(many.status).toBe(400);
    expect(many.json.error.message).toContain('more than 20 lines');
    const json = await fetch(`${gw.url}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(400);
    // Nothing was kept of the refused uploads.
    expect((await openAi(gw, acct.key).files.list()).data).toEqual([]);
  });

  it('fails a batch whose file has bad lines, naming each line', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const client = openAi(gw, acct.key);
    const batch = await runBatch(client, [
      chatLine('ok-1', 'hi'),
      '{"custom_id": "broken", ',
      chatLine('ok-1', 'again'),
      { ...chatLine('wrong-url', 'hi'), url: '/v1/embeddings' },
      { ...chatLine('wrong-method', 'hi'), method: 'GET' },
      { ...chatLine('bad-body', 'hi'), body: { model: 'gpt-sim', messages: 'hi' } },
      chatLine('streamed', 'hi', { stream: true }),
      chatLine('nul\u0000', 'hi'),
    ]);
    expect(batch.status).toBe('failed');
    expect(batch.failed_at).not.toBeNull();
    expect(batch.output_file_id).toBeNull();
    const errors = batch.errors?.data ?? [];
    expect(errors.map((e) => [e.line, e.code])).toEqual([
      [2, 'invalid_json_line'],
      [3, 'duplicate_custom_id'],
      [4, 'invalid_url'],
      [5, 'invalid_method'],
      [6, 'invalid_request'],
      [7, 'invalid_request'],
      [8, 'invalid_request'],
    ]);
    expect(errors[6]!.param).toBe('custom_id');
    expect(errors[4]!.param).toBe('body.messages');
    expect(errors[5]!.param).toBe('body.stream');
    expect(
      await gw.services.db.selectFrom('batch_lines').select('line').where('batch_id', '=', batch.id).execute(),
    ).toEqual([]);
  });

  it('refuses a line longer than the synchronous body limit, naming it; the lines after it are still read', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const client = openAi(gw, acct.key);
    const long = chatLine('long', 'word '.repeat(300));
    const longBytes = Buffer.byteLength(JSON.stringify(long));
    expect(longBytes).toBeGreaterThan(BODY_LIMIT);
    const batch = await runBatch(client, [chatLine('ok', 'hi'), long, '{"custom_id": "broken", ']);
    expect(batch.status).toBe('failed');
    expect(batch.errors?.data).toEqual([
      {
        code: 'body_too_large',
        message: `the line is ${longBytes} bytes, over the ${BODY_LIMIT} of BODY_LIMIT_BYTES`,
        param: null,
        line: 2,
      },
      { code: 'invalid_json_line', message: expect.any(String), param: null, line: 3 },
    ]);
  });

  it('refuses a batch at creation: unknown endpoint, wrong window, a file not found (400/404 naming the field)', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const client = openAi(gw, acct.key);
    const file = await uploadLines(client, [chatLine('a', 'hi')]);
    const refused = (body: Record<string, unknown>) =>
      client.batches.create(body as never).then(
        () => undefined,
        (err: { status: number; error: { param?: string } }) => ({ status: err.status, param: err.error?.param }),
      );
    expect(
      await refused({ input_file_id: file.id, endpoint: '/v1/images/generations', completion_window: '24h' }),
    ).toEqual({
      status: 400,
      param: 'endpoint',
    });
    expect(
      await refused({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '1h' }),
    ).toEqual({
      status: 400,
      param: 'completion_window',
    });
    expect(
      await refused({ input_file_id: 'file-nope', endpoint: '/v1/chat/completions', completion_window: '24h' }),
    ).toMatchObject({
      status: 404,
    });
    await expect(
      client.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
        metadata: { a: 1 } as never,
      }),
    ).rejects.toBeInstanceOf(BadRequestError);
  });

  it('an unknown model fails only its line, into the error file with model_not_found; the other lines complete', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const client = openAi(gw, acct.key);
    const batch = await runBatch(client, [
      chatLine('good', 'hi'),
      { ...chatLine('unknown', 'hi'), body: { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] } },
    ]);
    expect(batch.status).toBe('completed');
    expect(batch.request_counts).toEqual({ total: 2, completed: 1, failed: 1 });
    expect((await fileLines(client, batch.output_file_id)).map((l) => l.custom_id)).toEqual(['good']);
    const [failed] = await fileLines(client, batch.error_file_id);
    expect(failed).toMatchObject({
      custom_id: 'unknown',
      error: null,
      response: { status_code: 404, body: { error: { code: 'model_not_found' } } },
    });
    await drained(gw);
    expect(await expectConsistentLedger(gw.services.db, acct.userId)).toHaveLength(1);
  });

  it('the upload streams through the SDK unchanged for a file with a trailing line without newline', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const client = openAi(gw, acct.key);
    const text = `${JSON.stringify(chatLine('x', 'hi'))}\n${JSON.stringify(chatLine('y', 'hi'))}`;
    const file = await client.files.create({ file: await toFile(Buffer.from(text), 'raw.jsonl'), purpose: 'batch' });
    expect(file.bytes).toBe(Buffer.byteLength(text));
    expect(await (await client.files.content(file.id)).text()).toBe(text);
  });
});
