import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectFailure, signIn } from '../console/helpers.js';
import { chatRequest, postChat, waitUntil } from '../support/http.js';
import { drained } from '../support/money.js';
import { startTaskGateway, type TaskGateway } from '../support/task-gateway.js';

let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway();
});
afterAll(async () => {
  await gw?.close();
});

const start = new Date(Date.now() - 3_600_000).toISOString();
const end = new Date(Date.now() + 3_600_000).toISOString();

async function finished(token: string, id: string): Promise<Record<string, any>> {
  let data: Record<string, any> = {};
  await waitUntil(
    async () => {
      data = (await api(gw, 'GET', `/datasets/exports/${id}`, { token })).json.data;
      return data.status === 'succeeded' || data.status === 'failed';
    },
    15_000,
    50,
  );
  return data;
}

async function lines(url: string): Promise<Array<Record<string, any>>> {
  const text = await (await fetch(url)).text();
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('dataset export', () => {
  it('exports the records with their scores and, with content logging on, prompt and completion', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const { token } = await signIn(gw, acct.email);
    const on = await api(gw, 'PATCH', '/account/settings', { token, body: { log_content: true } });
    expect(on.json.data).toEqual({ log_content: true });
    // (The key was never used before, so no process holds it with the old setting.)

    expect(
      (
        await postChat(gw.url, acct.key, chatRequest('gpt-sim', 'keep me', { max_tokens: 3 }), {
          'x-request-id': 'ds-json',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await postChat(gw.url, acct.key, chatRequest('gpt-sim', 'stream me', { max_tokens: 3, stream: true }), {
          'x-request-id': 'ds-stream',
        })
      ).status,
    ).toBe(200);
    await drained(gw);
    const score = await fetch(`${gw.url}/v1/scores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ request_id: 'ds-json', name: 'quality', value: 0.9 }),
    });
    expect(score.status).toBe(200);

    const scored = await api(gw, 'POST', '/datasets/exports', {
      token,
      body: { start, end, score_name: 'quality', score_min: 0.5 },
    });
    expect(scored.status, JSON.stringify(scored.json)).toBe(202);
    const done = await finished(token, scored.json.data.id);
    expect(done).toMatchObject({ status: 'succeeded', records: 1 });
    const [only] = await lines(done.download.url);
    expect(only).toMatchObject({
      request_id: 'ds-json',
      model: 'gpt-sim',
      status_code: 200,
      scores: [{ name: 'quality', value: 0.9, comment: null }],
    });
    expect(only!.content.request.messages[0].content).toBe('keep me');
    expect(only!.content.response.choices[0].message.content).toEqual(expect.any(String));

    const all = await finished(
      token,
      (await api(gw, 'POST', '/datasets/exports', { token, body: { start, end } })).json.data.id,
    );
    const records = await lines(all.download.url);
    expect(records.map((r) => r.request_id).sort()).toEqual(['ds-json', 'ds-stream']);
    const streamed = records.find((r) => r.request_id === 'ds-stream')!;
    expect(streamed.content.response.stream).toBe(true);
    expect(streamed.content.response.content.length).toBeGreaterThan(0);

    // Another account's export answers like a missing one; bad filters name the field.
    const stranger = await gw.account();
    const theirs = await signIn(gw, stranger.email);
    expectFailure(await api(gw, 'GET', `/datasets/exports/${all.id}`, { token: theirs.token }), 404, 'not_found');
    expectFailure(
      await api(gw, 'POST', '/datasets/exports', { token, body: { start: end, end: start } }),
      400,
      'invalid_request',
    );
    expectFailure(
      await api(gw, 'POST', '/datasets/exports', { token, body: { start, end, score_min: 1 } }),
      400,
      'invalid_request',
    );
  });

  it('keeps no content while content logging is off (the default)', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const { token } = await signIn(gw, acct.email);
    expect((await api(gw, 'GET', '/account/settings', { token })).json.data).toEqual({ log_content: false });
    expect((await postChat(gw.url, acct.key, chatRequest('gpt-sim', 'forget me', { max_tokens: 3 }))).status).toBe(200);
    await drained(gw);
    const done = await finished(
      token,
      (await api(gw, 'POST', '/datasets/exports', { token, body: { start, end } })).json.data.id,
    );
    const [record] = await lines(done.download.url);
    expect(record!.content).toBeUndefined();
    expect(record!.scores).toEqual([]);
  });
});
