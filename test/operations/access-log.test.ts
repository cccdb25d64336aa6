import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Reply } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitUntil } from '../support/http.js';
import { spawnLogged, type LoggedProcess } from '../support/logged-process.js';
import { writeCatalogFile } from '../support/processes.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { Inbox } from '../console/security-gateway.js';

// The API and a mail worker as real processes logging at `debug`: one access-log line per request
// with its fields, and, over a varied run (sign-in with codes, a key made, calls on every
// surface, failures), no secret in any line either process wrote.
let gw: TestGateway;
let smtp: TestSmtp;
let apiProcess: LoggedProcess;
let worker: LoggedProcess;
let removeCatalog: () => Promise<void>;
let env: Record<string, string>;
const UPSTREAM_KEY = 'sim-upstream-secret';

beforeAll(async () => {
  smtp = await startSmtp();
  gw = await startTestGateway({ sim: { apiKey: UPSTREAM_KEY }, env: { SMTP_URL: smtp.url } });
  const catalog = await writeCatalogFile(gw.sim.url);
  removeCatalog = catalog.remove;
  env = {
    DATABASE_URL: gw.env.DATABASE_URL!,
    REDIS_PREFIX: gw.env.REDIS_PREFIX!,
    CATALOG_FILE: catalog.file,
    SMTP_URL: smtp.url,
    LOG_LEVEL: 'debug',
    SIGNIN_IP_LIMIT: '100000',
  };
  apiProcess = await spawnLogged('api', env);
  worker = await spawnLogged('worker', { ...env, WORKER_QUEUES: 'mail' });
});

afterAll(async () => {
  await apiProcess?.stop();
  await worker?.stop();
  await removeCatalog?.();
  await gw?.close();
  await smtp?.close();
});

/** The console API of the API process. */
const consoleApi = (method: string, path: string, o: Parameters<typeof api>[3] = {}): Promise<Reply> =>
  api({ ...gw, url: apiProcess.url }, method, path, o);

const accessLines = () => apiProcess.records().filter((r) => r.access === true);

function post(path: string, headers: Record<string, string>, body: unknown): Promise<Response> {
  return fetchFrom(apiProcess, path, headers, body);
}

async function fetchFrom(
  process: LoggedProcess,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<Response> {
  const res = await fetch(`${process.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res;
}

describe('access log', () => {
  it('one line per request: route, status, times, key and account, model, upstream, bytes, error code', async () => {
    const { key, keyId, userId } = await gw.account({ balance: 10_000_000 });
    const before = accessLines().length;
    const ok = await post(
      '/v1/chat/completions',
      { authorization: `Bearer ${key}`, 'x-request-id': 'access-log-ok' },
      { model: 'gpt-sim', messages: [{ role: 'user', content: 'hello' }] },
    );
    expect(ok.status).toBe(200);
    const bad = await post('/v1/chat/completions', { authorization: 'Bearer nope' }, { model: 'gpt-sim' });
    expect(bad.status).toBe(401);
    const koa = await fetch(`${apiProcess.url}/v1/models?key=not-in-the-log`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(koa.status).toBe(200);
    await koa.text();
    await waitUntil(() => accessLines().length >= before + 3, 15_000);
    const lines = accessLines().slice(before);
    expect(lines).toHaveLength(3);
    const [call, refused, models] = lines as Record<string, unknown>[];
    expect(call).toMatchObject({
      level: 30,
      msg: 'request',
      request_id: 'access-log-ok',
      method: 'POST',
      route: '/v1/chat/completions',
      status: 200,
      key_id: keyId,
      account_id: userId,
      model: 'gpt-sim',
      provider: 'sim',
      upstream_account: expect.stringMatching(/^sim\//),
      error_code: null,
    });
    expect(call!.time).toEqual(expect.any(Number));
    expect(call!.call_id).toEqual(expect.stringMatching(/^req_/));
    expect(call!.duration_ms).toBeGreaterThan(0);
    expect(call!.ttfb_ms).toBeGreaterThan(0);
    expect(call!.ttfb_ms as number).toBeLessThanOrEqual(call!.duration_ms as number);
    expect(call!.bytes_in).toBeGreaterThan(60);
    expect(call!.bytes_out).toBeGreaterThan(100);
    expect(refused).toMatchObject({ status: 401, error_code: 'invalid_api_key', key_id: null, model: null });
    expect(models).toMatchObject({ method: 'GET', route: '/v1/models', status: 200, key_id: keyId });
    expect(JSON.stringify(models)).not.toContain('not-in-the-log');
  });

  it('no secret in any log line over a varied run: sign-in with codes, a key made, calls, failures', async () => {
    const account = await gw.account({ balance: 10_000_000 });
    const secrets: string[] = [account.key, UPSTREAM_KEY, 'password123'];
    const inbox = new Inbox(smtp, account.email);

    // Sign in; turn two-step verification on with a mailed code; sign in again with a mailed code.
    const first = await consoleApi('POST', '/auth/login', {
      body: { identifier: account.email, password: 'password123' },
    });
    expect(first.status).toBe(200);
    const cookie = /gw_session=([^;]*)/.exec(first.headers.get('set-cookie') ?? '')?.[1];
    secrets.push(first.json.data.token, ...(cookie ? [cookie] : []));
    expect(
      (
        await consoleApi('POST', '/auth/sensitive-code', {
          token: first.json.data.token,
          body: { action: 'two_factor' },
        })
      ).status,
    ).toBe(202);
    const code = await inbox.nextCode();
    secrets.push(code);
    const on = await consoleApi('POST', '/auth/two-factor', {
      token: first.json.data.token,
      body: { enabled: true, password: 'password123', code },
    });
    expect(on.status, JSON.stringify(on.json)).toBe(200);
    const login = { identifier: account.email, password: 'password123' };
    expect((await consoleApi('POST', '/auth/login', { body: login })).status).toBe(401);
    const signInCode = await inbox.nextCode();
    secrets.push(signInCode);
    const wrong = signInCode === '00000000' ? '11111111' : '00000000';
    expect((await consoleApi('POST', '/auth/login/2fa', { body: { ...login, code: wrong } })).status).toBe(401);
    const second = await consoleApi('POST', '/auth/login/2fa', { body: { ...login, code: signInCode } });
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    secrets.push(second.json.data.token);
    expect(
      (await consoleApi('POST', '/auth/login', { body: { ...login, password: 'wrong-password-xyz' } })).status,
    ).toBe(401);
    secrets.push('wrong-password-xyz');

    // A key made in the console, then calls on several surfaces, each with the key where that surface takes it.
    const made = await consoleApi('POST', '/keys', { token: second.json.data.token, body: { name: 'logged' } });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    const newKey = made.json.data.key as string;
    secrets.push(newKey);
    const chat = { model: 'gpt-sim', messages: [{ role: 'user', content: 'hi' }] };
    expect((await post('/v1/chat/completions', { authorization: `Bearer ${newKey}` }, chat)).status).toBe(200);
    expect(
      (await post('/v1/chat/completions', { authorization: `Bearer ${newKey}` }, { ...chat, stream: true })).status,
    ).toBe(200);
    expect(
      (
        await post(
          '/v1/messages',
          { 'x-api-key': newKey, 'anthropic-version': '2023-06-01' },
          {
            model: 'gpt-sim',
            max_tokens: 20,
            messages: [{ role: 'user', content: 'hi' }],
          },
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await post(
          `/v1beta/models/gpt-sim:generateContent?key=${newKey}`,
          {},
          { contents: [{ parts: [{ text: 'hi' }] }] },
        )
      ).status,
    ).toBeLessThan(500);
    expect(
      (await post('/v1/embeddings', { authorization: `Bearer ${newKey}` }, { model: 'nope', input: 'x' })).status,
    ).toBe(404);
    expect((await post('/v1/chat/completions', { authorization: `Bearer ${newKey}x` }, chat)).status).toBe(401);
    expect(
      (await post('/v1/chat/completions', { authorization: `Bearer ${newKey}` }, { model: 'gpt-sim' })).status,
    ).toBe(400);

    await waitUntil(() => accessLines().some((l) => l.status === 400 && l.route === '/v1/chat/completions'), 15_000);
    const all = [...apiProcess.lines(), ...worker.lines()];
    expect(all.length).toBeGreaterThan(20);
    for (const secret of secrets)
      for (const line of all) expect(line.includes(secret), `a log line holds a secret: ${line}`).toBe(false);
    for (const line of all) expect(/authorization|cookie|x-api-key/i.test(line), line).toBe(false);
  });

  it('ACCESS_LOG=false writes no access line, while the process logs the rest as before', async () => {
    const quiet = await spawnLogged('api', { ...env, LOG_LEVEL: 'info', ACCESS_LOG: 'false' });
    try {
      const { key } = await gw.account({ balance: 10_000_000 });
      const chat = { model: 'gpt-sim', messages: [{ role: 'user', content: 'quiet' }] };
      expect((await fetchFrom(quiet, '/v1/chat/completions', { authorization: `Bearer ${key}` }, chat)).status).toBe(
        200,
      );
      expect((await fetchFrom(quiet, '/v1/chat/completions', { authorization: 'Bearer nope' }, chat)).status).toBe(401);
      const koa = await fetch(`${quiet.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      expect(koa.status).toBe(200);
      await koa.text();
      // A graceful stop: its shutdown lines come after anything those requests wrote, and 'close'
      // waits until every byte of stdout is read.
      const closed = once(quiet.child, 'close');
      quiet.child.kill('SIGTERM');
      await closed;
    } finally {
      await quiet.stop();
    }
    const messages = quiet.records().map((r) => r.msg);
    expect(messages).toContain('gateway API listening');
    expect(messages).toContain('shutting down');
    expect(quiet.records().filter((r) => r.access === true || r.msg === 'request')).toEqual([]);
  });
});
