import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, openAiError, postChat } from '../support/http.js';
import { drained, ledgerRows, usageRecords } from '../support/money.js';

let gw: TestGateway;
let acct: { userId: string; key: string };
const FUNDS = 1_000_000;

beforeAll(async () => {
  gw = await startTestGateway({ env: { BODY_LIMIT_BYTES: '1000' } });
  acct = await gw.account({ balance: FUNDS, key: { tags: ['team-a'] } });
});
afterAll(() => gw.close());

const hello = (extra: Record<string, unknown> = {}) => chatRequest('gpt-sim', 'hello', extra);

async function expect400(body: unknown, code: string, param: string | null) {
  const res = await postChat(gw.url, acct.key, body);
  expect(res.status, res.text).toBe(400);
  expect(openAiError(res)).toMatchObject({ code, param, type: 'invalid_request_error' });
}

describe('malformed bodies', () => {
  it('answers invalid_json for a body that is not a JSON object', async () => {
    for (const body of ['{"model": "gpt-sim", ', 'not json', '', '[1,2]', 'null', '"text"'])
      await expect400(body, 'invalid_json', null);
  });

  it('answers 413 body_too_large over BODY_LIMIT_BYTES, declared or streamed', async () => {
    const big = JSON.stringify(hello({ padding: 'x'.repeat(2_000) }));
    const declared = await postChat(gw.url, acct.key, big);
    expect(declared.status).toBe(413);
    expect(openAiError(declared).code).toBe('body_too_large');

    const chunks = [big.slice(0, 600), big.slice(600)];
    const streamed = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${acct.key}` },
      body: new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(next));
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as { error: { code: string } }).error.code).toBe('body_too_large');
    // Just under the limit is fine.
    expect((await postChat(gw.url, acct.key, hello({ padding: 'x'.repeat(900) }))).status).toBe(200);
  });

  it.each([
    ['missing messages', { model: 'gpt-sim' }, 'messages'],
    ['messages not an array', { model: 'gpt-sim', messages: 'hello' }, 'messages'],
    ['empty messages', { model: 'gpt-sim', messages: [] }, 'messages'],
    ['model of the wrong type', { model: 5, messages: [{ role: 'user', content: 'hi' }] }, 'model'],
    ['missing model', { messages: [{ role: 'user', content: 'hi' }] }, 'model'],
    ['max_tokens: -1', hello({ max_tokens: -1 }), 'max_tokens'],
    ['max_tokens: 1.5', hello({ max_tokens: 1.5 }), 'max_tokens'],
    ['messages[0].role missing', { model: 'gpt-sim', messages: [{ content: 'hi' }] }, 'messages[0].role'],
    [
      'messages[1] not an object',
      { model: 'gpt-sim', messages: [{ role: 'user', content: 'hi' }, 'x'] },
      'messages[1]',
    ],
    ['stream not a boolean', hello({ stream: 'yes' }), 'stream'],
  ])('%s → 400 naming the field', async (_, body, param) => {
    await expect400(body, 'invalid_request', param);
  });

  it('never answered 500 and charged nothing for any of them', async () => {
    await drained(gw);
    const records = await usageRecords(gw.services.db, acct.userId);
    expect(records.filter((r) => r.status_code >= 500)).toEqual([]);
    const charged = records.filter((r) => r.charged_micro_usd > 0);
    expect(charged.every((r) => r.status_code === 200)).toBe(true); // only the under-the-limit call
    expect((await ledgerRows(gw.services.db, acct.userId)).filter((r) => r.kind === 'charge')).toHaveLength(
      charged.length,
    );
  });
});

describe('headers', () => {
  it('echoes a valid X-Request-Id and replaces an invalid one', async () => {
    const valid = 'client-id_1.2:3';
    expect((await postChat(gw.url, acct.key, hello(), { 'x-request-id': valid })).headers.get('x-request-id')).toBe(
      valid,
    );
    for (const bad of ['x'.repeat(129), 'has space', 'slash/inside', 'semi;colon', 'per%41cent', '<script>']) {
      const res = await postChat(gw.url, acct.key, hello(), { 'x-request-id': bad });
      expect(res.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9]+$/);
    }
    // Errors carry it too, before any key check.
    expect((await postChat(gw.url, undefined, hello(), { 'x-request-id': valid })).headers.get('x-request-id')).toBe(
      valid,
    );
  });

  it('names the answering model in X-Service-Model', async () => {
    const res = await postChat(gw.url, acct.key, hello());
    expect(res.status).toBe(200);
    expect(res.headers.get('x-service-model')).toBe('gpt-sim');
  });

  it('refuses more than 10 tags or a tag over 64 bytes in X-Service-Tags', async () => {
    const eleven = Array.from({ length: 11 }, (_, i) => `t${i}`).join(',');
    const tooMany = await postChat(gw.url, acct.key, hello(), { 'x-service-tags': eleven });
    expect(tooMany.status).toBe(400);
    expect(openAiError(tooMany)).toMatchObject({ code: 'invalid_tags', param: 'X-Service-Tags' });
    const tooLong = await postChat(gw.url, acct.key, hello(), { 'x-service-tags': `ok,${'y'.repeat(65)}` });
    expect(tooLong.status).toBe(400);
    const ten = Array.from({ length: 10 }, (_, i) => `t${i}`).join(',');
    expect((await postChat(gw.url, acct.key, hello(), { 'x-service-tags': ten })).status).toBe(200);
  });

  it('records the key tags and the request tags on the usage record', async () => {
    const res = await postChat(gw.url, acct.key, hello(), {
      'x-service-tags': 'proj-x, exp-1,team-a',
      'x-request-id': 'tagged-call',
    });
    expect(res.status).toBe(200);
    await drained(gw);
    const record = (await usageRecords(gw.services.db, acct.userId)).find((r) => r.request_id === 'tagged-call');
    expect(record?.tags).toEqual(['team-a', 'proj-x', 'exp-1']);
  });
});
