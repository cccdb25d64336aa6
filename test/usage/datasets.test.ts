import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentKey } from '../../shared/datasets/content-log.js';
import type { ClientProtocol } from '../../shared/protocols/canonical/types.js';
import { api, expectFailure, signIn, type Json } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat, waitUntil } from '../support/http.js';
import { drained } from '../support/money.js';
import { startTaskGateway, type TaskGateway } from '../support/task-gateway.js';
import { MODEL_OF, surfacesCatalog } from '../surfaces/catalog.js';
import { frames, PROTOCOLS, readAnswer, surfaceRequest, WEATHER_TOOL, type Ask } from '../surfaces/protocol-clients.js';

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

// Every text surface, against an upstream of each protocol (the same protocol passes the stream
// through, the others translate it), streamed and not: what content logging keeps is what the
// client was answered — a streamed call too, whatever its protocol (it was stored with empty text).
describe('content logging on every text surface', () => {
  let sgw: TestGateway;
  beforeAll(async () => {
    sgw = await startTestGateway({ catalog: surfacesCatalog, sim: { apiKey: 'sim-upstream-secret' } });
  });
  afterAll(() => sgw?.close());

  const CLIENTS: ClientProtocol[] = ['openai', 'responses', 'anthropic', 'gemini'];

  function request(client: ClientProtocol, key: string, ask: Ask, requestId: string) {
    const { url, init } =
      client === 'responses'
        ? {
            url: `${sgw.url}/v1/responses`,
            init: {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } as Record<string, string>,
              body: JSON.stringify({
                model: ask.model,
                input: ask.text,
                stream: ask.stream,
                ...(ask.tools && { tools: [{ type: 'function', ...WEATHER_TOOL }] }),
              }),
            },
          }
        : surfaceRequest(client, sgw.url, key, ask);
    (init.headers as Record<string, string>)['x-request-id'] = requestId;
    return fetch(url, init);
  }

  /** The text and tool call the client read from its answer. */
  async function answered(client: ClientProtocol, res: Response, stream: boolean) {
    if (client !== 'responses') {
      const answer = await readAnswer(client, res, stream);
      return { text: answer.text, tool: answer.toolCall?.name, body: undefined as unknown };
    }
    const text = await res.text();
    expect(res.status, text).toBe(200);
    if (!stream) {
      const body = JSON.parse(text) as { output: Array<{ type: string; name?: string; content?: { text: string }[] }> };
      const said = body.output.flatMap((o) => o.content ?? []).map((c) => c.text);
      return { text: said.join(''), tool: body.output.find((o) => o.type === 'function_call')?.name, body };
    }
    const events = frames(text).map((f) => JSON.parse(f.data) as Json);
    const deltas = events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta as string);
    const call = events.find((e) => e.type === 'response.output_item.added' && e.item?.type === 'function_call');
    return { text: deltas.join(''), tool: call?.item.name as string | undefined, body: undefined };
  }

  async function logged(userId: string, requestId: string): Promise<Json> {
    const key = contentKey(userId, requestId);
    let found: Json;
    await waitUntil(async () => {
      const stored = await sgw.services.storage.get(key);
      if (!stored) return false;
      const chunks: Buffer[] = [];
      for await (const chunk of stored.body) chunks.push(chunk as Buffer);
      found = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      return true;
    }, 5_000);
    return found;
  }

  it('keeps the completion of chat completions, Responses, Messages and generateContent calls, streamed and not', async () => {
    const acct = await sgw.account({ balance: 10_000_000 });
    const { token } = await signIn(sgw, acct.email);
    expect((await api(sgw, 'PATCH', '/account/settings', { token, body: { log_content: true } })).status).toBe(200);
    for (const client of CLIENTS) {
      for (const upstream of PROTOCOLS) {
        for (const stream of [false, true]) {
          for (const tools of [false, true]) {
            const name = `${client} ← ${upstream}, ${tools ? 'tool call' : 'text'}, ${stream ? 'streamed' : 'whole'}`;
            const requestId = `log-${client}-${upstream}-${stream}-${tools}`;
            const ask = { model: MODEL_OF[upstream], text: 'what is the weather in Paris', stream, tools };
            const res = await request(client, acct.key, ask, requestId);
            const got = await answered(client, res, stream);
            const kept = await logged(acct.userId, requestId);
            expect(kept.request, name).toBeTypeOf('object');
            if (!stream) {
              // A whole answer is kept as the client got it.
              if (got.body !== undefined) expect(kept.response, name).toEqual(got.body);
              expect(JSON.stringify(kept.response), name).toContain(got.text);
              continue;
            }
            expect(kept.response, name).toMatchObject({
              stream: true,
              content: got.text,
              stop_reason: expect.any(String),
            });
            if (tools) {
              expect(got.tool, name).toBe(WEATHER_TOOL.name);
              expect(kept.response.tool_calls, name).toMatchObject([{ name: WEATHER_TOOL.name }]);
            } else {
              expect(got.text.length, name).toBeGreaterThan(0);
              expect(kept.response.tool_calls, name).toBeUndefined();
            }
          }
        }
      }
    }
  });
});
