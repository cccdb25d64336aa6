import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitUntil } from '../support/http.js';
import { drained, usageRecords } from '../support/money.js';

const SECRET = 'sim-upstream-secret';
let gw: TestGateway;
let acct: { userId: string; key: string };
/** Every status line, header and body the gateway sent in this file, for the credential check. */
const seen: string[] = [];

const recordingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const body = await res.clone().text();
  seen.push(`${res.status} ${JSON.stringify([...res.headers])}\n${body}`);
  return res;
};

beforeAll(async () => {
  // The simulator demands the upstream credential, so a leak would be the real one.
  gw = await startTestGateway({ sim: { apiKey: SECRET }, env: { UPSTREAM_HEADERS_TIMEOUT_MS: '300' } });
  acct = await gw.account({ balance: 10_000_000 });
});
afterAll(() => gw.close());

function client(apiKey = acct.key, headers: Record<string, string> = {}) {
  return new OpenAI({ apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0, fetch: recordingFetch, defaultHeaders: headers });
}

async function apiError(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof OpenAI.APIError)) throw new Error(`expected an APIError, got ${String(err)}`);
  return err;
}

const ask = (c: OpenAI, content: string, model = 'gpt-sim') =>
  c.chat.completions.create({ model, messages: [{ role: 'user', content }] });

describe('errors through the official client', () => {
  it('exposes status, code and the request id of the response', async () => {
    const unknown = await apiError(ask(client('sk-not-a-real-key'), 'hi'));
    expect(unknown).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(unknown).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'authentication_error' });
    expect(unknown.requestID).toMatch(/^req_/);
    expect(unknown.requestID).toBe(unknown.headers?.get('x-request-id'));

    const missing = await apiError(ask(client(acct.key, { 'X-Request-Id': 'my-trace-42' }), 'hi', 'no-such-model'));
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'model_not_found', param: 'model', requestID: 'my-trace-42' });
  });

  it('gives the request id of a success too', async () => {
    const { response, request_id } = await ask(client(acct.key, { 'X-Request-Id': 'ok-trace-1' }), 'hi').withResponse();
    expect(response.headers.get('x-request-id')).toBe('ok-trace-1');
    expect(request_id).toBe('ok-trace-1');
  });

  it('upstream 500 → 502 upstream_error', async () => {
    const err = await apiError(ask(client(), '[[sim:fault=error500]]'));
    expect(err).toMatchObject({ status: 502, code: 'upstream_error', type: 'api_error' });
    expect(err.requestID).toMatch(/^req_/);
  });

  it('upstream 429 → 429 with Retry-After', async () => {
    const err = await apiError(ask(client(), '[[sim:fault=error429,retryAfterSeconds=7]]'));
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'upstream_rate_limited' });
    expect(err.headers?.get('retry-after')).toBe('7');
  });

  it('an upstream that never answers → 504 upstream_timeout, and the upstream is let go', async () => {
    const start = performance.now();
    const err = await apiError(ask(client(), '[[sim:fault=hang]]'));
    expect(err).toMatchObject({ status: 504, code: 'upstream_timeout' });
    expect(performance.now() - start).toBeLessThan(2_000);
    await waitUntil(() => gw.sim.stats().inFlight === 0, 500, 5);
  });

  it('failed upstream calls are recorded and cost nothing', async () => {
    const before = await gw.services.balances.currentBalance(acct.userId);
    await drained(gw);
    const failed = (await usageRecords(gw.services.db, acct.userId)).filter(
      (r) => r.status_code >= 500 || r.status_code === 429,
    );
    expect(failed.map((r) => [r.status_code, r.error_code, r.charged_micro_usd]).sort()).toEqual([
      [429, 'upstream_rate_limited', 0],
      [502, 'upstream_error', 0],
      [504, 'upstream_timeout', 0],
    ]);
    expect((await gw.services.balances.currentBalance(acct.userId))?.balance).toBe(before?.balance);
  });

  it('falls back to the next route when the first fails', async () => {
    gw.sim.setModel('sim-broken', { fault: 'error500' });
    gw.sim.resetStats();
    const { data, response, request_id } = await ask(client(), 'hello', 'gpt-sim-fallback').withResponse();
    expect(data.choices[0]?.message.content).toContain('tok16');
    expect(response.headers.get('x-service-model')).toBe('gpt-sim-fallback');
    expect(gw.sim.stats().byModel).toEqual({ 'sim-broken': 1, 'sim-model': 1 });
    await drained(gw);
    const record = (await usageRecords(gw.services.db, acct.userId)).find((r) => r.request_id === request_id);
    expect(record).toMatchObject({ model: 'gpt-sim-fallback', provider: 'sim-backup', status_code: 200 });
  });

  it('never shows the upstream credential to the client', async () => {
    // Streams and JSON, successes and failures, so every path above plus these was recorded.
    const c = client();
    const stream = await c.chat.completions.create({
      model: 'gpt-sim',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    for await (const _ of stream) void _;
    await apiError(ask(c, '[[sim:fault=errorMidStream]]'));
    await c.models.list();
    expect(gw.sim.stats().lastHeaders?.authorization).toBe(`Bearer ${SECRET}`); // the upstream did get it
    expect(seen.length).toBeGreaterThanOrEqual(10);
    for (const response of seen) expect(response).not.toContain(SECRET);
  });
});
