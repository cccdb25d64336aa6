import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  Gateway,
  GatewayError,
  InsufficientFundsError,
  NotFoundError,
  StreamInterruptedError,
  UploadError,
  WaitTimeoutError,
} from '../../clients/typescript/src/index.js';
import { CUT, startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { drained } from '../support/money.js';
import { ROOT } from '../support/processes.js';
import { startTaskGateway, VIDEO_MODEL, type TaskGateway } from '../support/task-gateway.js';

let gw: TaskGateway;
let key: string;
let client: Gateway;
let proxy: FaultProxy;

const user = (text: string) => [{ role: 'user', content: text }];
const video = (text: string) => ({
  model: VIDEO_MODEL,
  content: [{ type: 'text', text }],
  duration: 5,
  resolution: '720p',
});
const fast = { initialDelayMs: 5, maxDelayMs: 20 };

beforeAll(async () => {
  gw = await startTaskGateway();
  ({ key } = await gw.account({ balance: 50_000_000 }));
  client = new Gateway({ apiKey: key, baseURL: gw.url });
  proxy = await startFaultProxy(gw.url);
});

afterAll(async () => {
  await proxy?.close();
  await gw?.close();
});

describe('construction and arguments (nothing sent)', () => {
  it('refuses a remote plain-http origin and accepts loopback http and https', () => {
    for (const baseURL of ['http://example.com', 'http://10.0.0.1:8080', 'ftp://127.0.0.1', 'not a url']) {
      expect(() => new Gateway({ apiKey: 'sk-x', baseURL }), baseURL).toThrow(TypeError);
    }
    for (const baseURL of [
      'http://127.0.0.1:8080',
      'http://localhost',
      'http://[::1]:9000',
      'https://gateway.example.com',
    ]) {
      expect(new Gateway({ apiKey: 'sk-x', baseURL }).transport.origin.href).toContain(new URL(baseURL).host);
    }
  });

  it('never exposes the key when the client is inspected or serialised', async () => {
    const { inspect } = await import('node:util');
    const c = new Gateway({ apiKey: 'sk-supersecret', baseURL: 'http://127.0.0.1:9' });
    expect(inspect(c, { depth: 5 })).not.toContain('supersecret');
    expect(JSON.stringify(Object.keys(c))).not.toContain('apiKey');
  });

  it('fails fast on invalid arguments, before any request', async () => {
    const offline = new Gateway({ apiKey: 'sk-x', baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
    const calls: Array<() => unknown> = [
      () => offline.chat.completions.create({ model: '', messages: user('x') }),
      () => offline.chat.completions.create({ model: 'm', messages: [] }),
      () => offline.chat.completions.create({ model: 'm', messages: user('x') }, { tags: ['a,b'] }),
      () => offline.videos.create({ model: 'm', content: [] }),
      () => offline.videos.create(video('x'), { idempotencyKey: 'has space' }),
      () => offline.videos.get('../keys'),
      () => offline.videos.wait('t', { timeout: 0 }),
      () => offline.estimates.create({ endpoint: 'audio', payload: {} }),
      () => offline.usage.report({ group_by: 'week', start: 'a', end: 'b' }),
      () => offline.scores.create({ name: 'Bad Name', value: 1, request_id: 'r' }),
      () => offline.scores.create({ name: 'ok', value: 2_000_000, request_id: 'r' }),
      () => offline.scores.create({ name: 'ok', value: 1 }),
      () => offline.private.getResult({ clientRequestId: 'x' }),
      () => offline.assets.upload(new Uint8Array([1, 2, 3])),
    ];
    for (const [index, call] of calls.entries()) {
      await expect((async () => call())(), `case ${index}`).rejects.toThrow(TypeError);
    }
  });
});

describe('against the running gateway', () => {
  it('creates a chat completion with the request id attached, not enumerable', async () => {
    const answer = await client.chat.completions.create(
      { model: 'gpt-sim', messages: user('hello') },
      { tags: ['ts-client'] },
    );
    expect(answer.object).toBe('chat.completion');
    expect(answer.requestID).toMatch(/\S/);
    expect(Object.keys(answer)).not.toContain('requestID');
  });

  it('streams chunks as an async iterable', async () => {
    const stream = await client.chat.completions.create({ model: 'gpt-sim', messages: user('stream'), stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    expect(stream.requestID).toMatch(/\S/);
  });

  it('raises on a stream the upstream cut, with the request id, and sends it once', async () => {
    const before = proxy.hits('POST', '/v1/chat/completions');
    const via = new Gateway({ apiKey: key, baseURL: proxy.url });
    const stream = await via.chat.completions.create({
      model: 'gpt-sim',
      messages: user('[[sim:fault=disconnect]] cut'),
      stream: true,
    });
    const error = await (async () => {
      for await (const _ of stream) void _;
    })().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('upstream_stream_interrupted');
    expect((error as GatewayError).requestID).toBe(stream.requestID);
    expect(proxy.hits('POST', '/v1/chat/completions') - before).toBe(1);
  });

  it('raises StreamInterruptedError on a connection dropped mid-stream and never replays it', async () => {
    const via = new Gateway({ apiKey: key, baseURL: proxy.url });
    const before = proxy.hits('POST', '/v1/chat/completions');
    proxy.plan.set('POST /v1/chat/completions', [CUT]);
    const stream = await via.chat.completions.create({
      model: 'gpt-sim',
      messages: user('a long answer'),
      stream: true,
      max_tokens: 64,
    });
    const received: unknown[] = [];
    const error = await (async () => {
      for await (const chunk of stream) received.push(chunk);
    })().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(received.length).toBeGreaterThan(0);
    expect(proxy.hits('POST', '/v1/chat/completions') - before).toBe(1);
  });

  it('creates, retries by hand, waits for, lists and cancels video tasks', async () => {
    const task = await client.videos.create(video('a cat surfing'));
    expect(task.idempotencyKey).toMatch(/^gwc-/);
    const again = await client.videos.create(video('a cat surfing'), { idempotencyKey: task.idempotencyKey });
    expect(again.id).toBe(task.id);
    const done = await client.videos.wait(task.id, { timeout: 60_000, interval: 200 });
    expect(done.status).toBe('succeeded');
    expect(done.stored_url ?? done.provider_url).toBeTruthy();
    expect((await client.videos.list({ limit: 100 })).data.map((t) => t.id)).toContain(task.id);

    const slow = await client.videos.create(video('[[sim:taskRunMs=5000]] slow'));
    const timeout = await client.videos.wait(slow.id, { timeout: 300, interval: 100 }).catch((err: unknown) => err);
    expect(timeout).toBeInstanceOf(WaitTimeoutError);
    expect((await client.videos.get(slow.id)).status).not.toBe('cancelled');
    expect((await client.videos.cancel(slow.id)).status).toBe('cancelled');
  });

  it('asks for estimates and the key usage view', async () => {
    const quote = await client.estimates.create({
      endpoint: 'chat/completions',
      payload: { model: 'gpt-sim', messages: user('price me'), max_tokens: 10 },
    });
    expect(Number.isInteger(quote.estimated_micro_usd)).toBe(true);
    expect(quote.is_free).toBe(false);
    const usage = await client.keyUsage.get();
    expect((usage.key as { last4: string }).last4).toBe(key.slice(-4));
  });

  it('exposes status, code and request id on errors', async () => {
    const missing = await client.videos.get('task_does_not_exist').catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    expect((missing as GatewayError).requestID).toMatch(/\S/);
    const stranger = new Gateway({ apiKey: `sk-${'x'.repeat(48)}`, baseURL: gw.url });
    await expect(stranger.keyUsage.get()).rejects.toMatchObject({
      constructor: AuthenticationError,
      status: 401,
      code: 'invalid_api_key',
    });
    const poor = await gw.account({ balance: 1 });
    const broke = new Gateway({ apiKey: poor.key, baseURL: gw.url });
    await expect(broke.chat.completions.create({ model: 'gpt-sim', messages: user('x') })).rejects.toBeInstanceOf(
      InsufficientFundsError,
    );
  });

  it('retries a GET after 503s, never a POST, and refuses redirects', async () => {
    const via = new Gateway({ apiKey: key, baseURL: proxy.url, ...fast });
    proxy.plan.set('GET /v1/key/usage', [503, 503]);
    const before = proxy.hits('GET', '/v1/key/usage');
    expect((await via.keyUsage.get()).quota).toBeTruthy();
    expect(proxy.hits('GET', '/v1/key/usage') - before).toBe(3);

    proxy.plan.set('POST /v1/videos', [503]);
    const posts = proxy.hits('POST', '/v1/videos');
    await expect(via.videos.create(video('x'))).rejects.toMatchObject({ status: 503 });
    expect(proxy.hits('POST', '/v1/videos') - posts).toBe(1);

    proxy.plan.set('GET /v1/videos', [302]);
    await expect(via.videos.list()).rejects.toMatchObject({ status: 302, code: 'redirect_refused' });

    const off = new Gateway({ apiKey: key, baseURL: proxy.url, maxRetries: 0 });
    proxy.plan.set('GET /v1/key/usage', [503]);
    await expect(off.keyUsage.get()).rejects.toMatchObject({ status: 503 });
  });

  it('reads the account usage report (JSON and CSV) and logs, and scores a request', async () => {
    const reader = await gw.account({ balance: 10_000_000, key: { usage_access: true } });
    const withAccess = new Gateway({ apiKey: reader.key, baseURL: gw.url });
    await withAccess.chat.completions.create(
      { model: 'gpt-sim', messages: user('to be scored') },
      { requestId: 'ts-client-scored', sessionId: 'ts-session' },
    );
    await drained(gw);
    const start = new Date(Date.now() - 3_600_000).toISOString();
    const end = new Date(Date.now() + 60_000).toISOString();
    const report = await withAccess.usage.report({ group_by: 'model', start, end });
    expect((report.total as { requests: number }).requests).toBe(1);
    const csv = await withAccess.usage.report({ group_by: 'model', start, end, format: 'csv' });
    expect(csv.split('\r\n')[0]).toBe(
      'group,requests,errors,input_tokens,output_tokens,cached_tokens,charged_micro_usd,cache_hits',
    );
    const logs = await withAccess.usage.logs({ session_id: 'ts-session' });
    expect((logs.data as Array<{ request_id: string }>).map((r) => r.request_id)).toEqual(['ts-client-scored']);
    const score = await withAccess.scores.create({ request_id: 'ts-client-scored', name: 'helpful', value: 1 });
    expect(score).toMatchObject({ object: 'score', name: 'helpful', value: 1 });
    await expect(client.usage.report({ group_by: 'model', start, end })).rejects.toMatchObject({
      status: 403,
      code: 'usage_access_disabled',
    });
  });

  it('uploads an asset (PUT without the key), reads, links and deletes it, and resumes a failed confirmation', async () => {
    const { default: sharp } = await import('sharp');
    const png = new Uint8Array(
      await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } })
        .png()
        .toBuffer(),
    );
    const asset = await client.assets.upload(png, { filename: 'tiny.png' });
    expect(asset).toMatchObject({ reference: `asset://${asset.id}`, width: 8, height: 8 });
    expect((await client.assets.get(asset.id)).id).toBe(asset.id);
    expect((await client.assets.list()).data.map((a) => a.id)).toContain(asset.id);
    const link = await client.assets.downloadUrl(asset.id);
    expect(Buffer.from(await (await fetch(link.url)).arrayBuffer()).equals(Buffer.from(png))).toBe(true);
    await client.assets.delete(asset.id);
    await expect(client.assets.get(asset.id)).rejects.toBeInstanceOf(NotFoundError);

    // The confirmation fails once (503): the error keeps the stage and ids, and resuming completes it.
    const via = new Gateway({ apiKey: key, baseURL: proxy.url });
    proxy.plan.set('POST /v1/assets/uploads/*', [503]);
    const failure = await via.assets.upload(png).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(UploadError);
    expect(failure).toMatchObject({ stage: 'complete', uploadId: expect.stringMatching(/^up_/), status: 503 });
    const resumed = await via.assets.resumeUpload(failure as UploadError);
    expect(resumed).toMatchObject({ width: 8, height: 8, reference: expect.stringMatching(/^asset:\/\/asset_/) });
  });

  it('calls the private protocol with an ak- key: a chat job, its replay, getResult by both ids, a stream, a miss', async () => {
    const { key: privateKey } = await gw.account({ balance: 5_000_000, key: { kind: 'private' } });
    const server = new Gateway({ apiKey: privateKey, baseURL: gw.url });
    const first = await server.private.call({
      clientRequestId: 'ts-1',
      model: 'gpt-sim',
      input: { messages: user('hello'), max_tokens: 3 },
    });
    expect(first).toMatchObject({
      client_request_id: 'ts-1',
      status: 'succeeded',
      result: { object: 'chat.completion' },
    });
    expect(first.requestID).toMatch(/^req_/);
    const replay = await server.private.call({
      clientRequestId: 'ts-1',
      model: 'gpt-sim',
      input: { messages: user('hello'), max_tokens: 3 },
    });
    expect(replay.task_id).toBe(first.task_id);
    expect((await server.private.getResult({ taskId: first.task_id })).status).toBe('succeeded');
    expect((await server.private.getResult({ clientRequestId: 'ts-1' })).task_id).toBe(first.task_id);
    let text = '';
    for await (const chunk of await server.private.call({
      clientRequestId: 'ts-2',
      model: 'gpt-sim',
      stream: true,
      input: { messages: user('hi'), max_tokens: 3 },
    }))
      text += chunk.choices?.[0]?.delta?.content ?? '';
    expect(text).toBe('tok1 tok2 tok3 ');
    await expect(server.private.getResult({ clientRequestId: 'never-sent' })).rejects.toBeInstanceOf(NotFoundError);
    const reused = await server.private
      .call({ clientRequestId: 'ts-1', model: 'gpt-sim', input: { messages: user('other'), max_tokens: 3 } })
      .catch((e: unknown) => e);
    expect(reused).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
  });

  it('raises its own error with status and request id on an answer that is not JSON', async () => {
    const error = await client.transport
      .request('GET', '/usage-lookup')
      .then((answer) => import('../../clients/typescript/src/transport.js').then((t) => t.parseJson(answer)))
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 200, code: 'invalid_response' });
    expect((error as GatewayError).requestID).toMatch(/\S/);
  });
});

describe('the packed archive', () => {
  const run = promisify(execFile);

  it('builds gateway-client-0.1.7.tgz, installs into a scratch project, and runs the README quick start (ESM) and a CommonJS require', async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'gw-tsclient-'));
    try {
      const clientDir = path.join(ROOT, 'clients', 'typescript');
      await run('node', [path.join(clientDir, 'build.mjs')], { timeout: 120_000 });
      await run('npm', ['pack', clientDir, '--pack-destination', scratch, '--silent'], { timeout: 60_000 });
      await writeFile(
        path.join(scratch, 'package.json'),
        JSON.stringify({ name: 'scratch', private: true, type: 'module' }),
      );
      await run(
        'npm',
        ['install', '--offline', '--no-audit', '--no-fund', path.join(scratch, 'gateway-client-0.1.7.tgz')],
        { cwd: scratch, timeout: 120_000 },
      );
      const readme = await readFile(path.join(clientDir, 'README.md'), 'utf8');
      const quickStart = /## Quick start\s+```js\n([\s\S]*?)```/.exec(readme)?.[1];
      expect(quickStart).toBeTruthy();
      const script = quickStart!
        .replace("'sk-…'", JSON.stringify(key))
        .replace("'http://127.0.0.1:8080'", JSON.stringify(gw.url))
        .replaceAll("'demo-large'", "'gpt-sim'")
        .replace("'demo-video'", JSON.stringify(VIDEO_MODEL))
        .replace('duration: 5 }', "duration: 5, resolution: '720p' }")
        // The test gateway's tasks end in a fraction of a second: no need to poll every 5 s.
        .replace('{ timeout: 600_000 }', '{ timeout: 600_000, interval: 200 }');
      await writeFile(path.join(scratch, 'quick-start.mjs'), script);
      const { stdout } = await run('node', ['quick-start.mjs'], { cwd: scratch, timeout: 60_000 });
      expect(stdout).toContain('succeeded');
      const cjs = await run(
        'node',
        [
          '-e',
          "const { Gateway, GatewayError } = require('gateway-client'); console.log(typeof Gateway, typeof GatewayError)",
        ],
        { cwd: scratch },
      );
      expect(cjs.stdout.trim()).toBe('function function');
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }, 240_000);
});
