// L9: Postgres refuses NUL in text and jsonb, so a `\u0000` that reached it answered 500. Every
// surface refuses it up front: 400 naming the field, in the caller's own error format, nothing stored.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signIn, type Json } from '../console/helpers.js';
import { postJson, type JsonReply } from '../support/limits.js';
import { startTaskGateway, taskRows, videoBody, type TaskGateway } from '../support/task-gateway.js';

let gw: TaskGateway;
let owner: { userId: string; email: string; key: string; keyId: string };
let token: string;
let privateKey: string;

beforeAll(async () => {
  gw = await startTaskGateway({ workers: false });
  owner = await gw.account({ balance: 5_000_000, key: { usage_access: true } });
  token = (await signIn(gw, owner.email)).token;
  ({ key: privateKey } = await gw.account({ balance: 5_000_000, key: { kind: 'private' } }));
});
afterAll(() => gw?.close());

const NUL = 'a\u0000b';
const chat = { model: 'gpt-sim', messages: [{ role: 'user', content: NUL }], max_tokens: 5 };

async function get(path: string, headers: Record<string, string>): Promise<JsonReply> {
  const res = await fetch(`${gw.url}${path}`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

function expectOpenAi(reply: JsonReply, param: string): void {
  expect(reply.status, JSON.stringify(reply.json)).toBe(400);
  expect(reply.json.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param });
  expect(reply.json.error.message).toContain(`'${param}'`);
}

function expectConsole(reply: { status: number; headers: Headers; json: Json }, field: string): void {
  expect(reply.status, JSON.stringify(reply.json)).toBe(400);
  expect(reply.json).toEqual({
    code: 400,
    error_code: 'invalid_request',
    message: expect.stringContaining(`'${field}'`),
    param: field,
    request_id: reply.headers.get('x-request-id'),
  });
}

describe('a NUL in a JSON body is a 400 naming the field, in the surface format', () => {
  it('OpenAI surfaces: chat completions (node:http path), Responses, scores, videos', async () => {
    expectOpenAi(await postJson(gw, '/v1/chat/completions', owner.key, chat), 'messages[0].content');
    expectOpenAi(await postJson(gw, '/v1/responses', owner.key, { model: 'gpt-sim', input: NUL }), 'input');
    expectOpenAi(
      await postJson(gw, '/v1/scores', owner.key, { request_id: 'req_x', name: 'q', value: 1, comment: NUL }),
      'comment',
    );
    expectOpenAi(await postJson(gw, '/v1/videos', owner.key, videoBody(NUL)), 'content[0].text');
    expect(await taskRows(gw, owner.userId)).toEqual([]);
    // A NUL in a member name is named too (escaped, so the message stays printable).
    const named = await postJson(gw, '/v1/chat/completions', owner.key, {
      ...chat,
      messages: [{ role: 'user', content: 'hi' }],
      metadata: { 'k\u0000': 'v' },
    });
    expectOpenAi(named, 'metadata.k\\u0000');
  });

  it('Messages and generateContent surfaces answer in their own formats', async () => {
    const messages = await postJson(gw, '/v1/messages', undefined, chat, {
      'x-api-key': owner.key,
      'anthropic-version': '2023-06-01',
    });
    expect(messages.status, JSON.stringify(messages.json)).toBe(400);
    expect(messages.json).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', code: 'invalid_request', param: 'messages[0].content' },
    });
    const content = await postJson(
      gw,
      '/v1beta/models/gpt-sim:generateContent',
      undefined,
      { contents: [{ role: 'user', parts: [{ text: NUL }] }] },
      { 'x-goog-api-key': owner.key },
    );
    expect(content.status, JSON.stringify(content.json)).toBe(400);
    expect(content.json.error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      details: [{ reason: 'invalid_request', metadata: { field: 'contents[0].parts[0].text' } }],
    });
  });

  it('the private protocol answers in its envelope, and nothing is recorded', async () => {
    const clientRequestId = `nul-${Date.now()}`;
    const reply = await postJson(gw, '/server/v1/call', undefined, {
      apiKey: privateKey,
      clientRequestId,
      model: 'gpt-sim',
      input: { messages: [{ role: 'user', content: NUL }], max_tokens: 2 },
    });
    expect(reply.status, JSON.stringify(reply.json)).toBe(400);
    expect(reply.json).toMatchObject({
      code: 400,
      error_code: 'invalid_request',
      message: expect.stringContaining("'input.messages[0].content'"),
    });
    const lookup = await postJson(gw, '/server/v1/getResult', undefined, { apiKey: privateKey, clientRequestId });
    expect(lookup.status).toBe(404);
  });

  it('console: key names, key tags, the nickname', async () => {
    expectConsole(await api(gw, 'POST', '/keys', { token, body: { name: NUL } }), 'name');
    expectConsole(await api(gw, 'POST', '/keys', { token, body: { name: 'ok', tags: ['fine', NUL] } }), 'tags[1]');
    expectConsole(await api(gw, 'PATCH', `/keys/${owner.keyId}`, { token, body: { name: NUL } }), 'name');
    expectConsole(await api(gw, 'PATCH', '/auth/me', { token, body: { nickname: NUL } }), 'nickname');
    const keys = await api(gw, 'GET', '/keys', { token });
    expect(keys.json.list.map((k: Json) => k.name)).not.toContain(NUL);
  });
});

describe('a NUL elsewhere in the request', () => {
  it('query strings and paths: 400 naming the parameter, on the gateway and the console', async () => {
    expectOpenAi(await get('/v1/usage/logs?tag=a%00b', { authorization: `Bearer ${owner.key}` }), 'tag');
    expectOpenAi(await get('/v1/usage/logs?model=%00', { authorization: `Bearer ${owner.key}` }), 'model');
    expectConsole(await api(gw, 'GET', '/usage/logs?session_id=x%00', { token }), 'session_id');
    const path = await api(gw, 'GET', '/presets/a%00b', { token });
    expect(path.status).toBe(400);
    expect(path.json).toMatchObject({ error_code: 'invalid_request', message: expect.stringContaining('path') });
  });

  it('X-Service-Tags with a NUL never reaches the database', async () => {
    // node:http refuses a raw NUL in a header before any route runs.
    const status = await rawStatus(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${owner.key}\r\nContent-Type: application/json\r\nX-Service-Tags: a\u0000b\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    );
    expect(status).toBe(400);
  });

  it('the gateway still answers normally', async () => {
    const ok = await postJson(gw, '/v1/chat/completions', owner.key, {
      ...chat,
      messages: [{ role: 'user', content: 'a\\u0000b is only text here' }],
    });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
  });
});

function rawStatus(text: string): Promise<number> {
  const { port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.setTimeout(5_000, () => {
      socket.destroy();
      reject(new Error('no answer'));
    });
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.on('error', () => undefined);
    socket.write(Buffer.from(text, 'utf8'));
  });
}
