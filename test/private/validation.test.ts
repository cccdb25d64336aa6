import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditBalance } from '../../shared/billing/credit.js';
import { offsetClock } from '../support/gateway.js';
import { usageRecords, usersBalance, waitForUsage } from '../support/money.js';
import { startTaskGateway, type TaskGateway } from '../support/task-gateway.js';

// The six ordered steps with the key taken from the body, each answered in the private envelope;
// a call refused at steps 5-6 is no result (the same clientRequestId runs it once the cause is fixed).
const clock = offsetClock();
let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway({ clock });
});
afterAll(() => gw?.close());

async function call(body: Record<string, unknown>, path = 'call', headers: Record<string, string> = {}) {
  const res = await fetch(`${gw.url}/server/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      clientRequestId: `c-${Math.random()}`,
      model: 'gpt-sim',
      input: { messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 },
      ...body,
    }),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    type: res.headers.get('content-type') ?? '',
    // biome-ignore lint/suspicious/noExplicitAny: answers of several shapes, checked field by field
    json: JSON.parse(text) as any,
  };
}

const RATE_HEADERS = ['X-RateLimit-Limit-Requests', 'X-RateLimit-Remaining-Requests', 'X-RateLimit-Reset-Requests'];

describe('validation order under /server', () => {
  it('answers each step in the envelope with its status and code', async () => {
    expect(await call({ apiKey: 'ak-unknownunknownunknown' })).toMatchObject({
      status: 401,
      json: { code: 401, error_code: 'invalid_api_key' },
    });
    const disabled = await gw.account({ balance: 1_000_000, key: { kind: 'private' } });
    await gw.services.db.updateTable('api_keys').set({ status: 'disabled' }).where('id', '=', disabled.keyId).execute();
    gw.services.keyCache.clear();
    expect(await call({ apiKey: disabled.key })).toMatchObject({ status: 403, json: { error_code: 'key_disabled' } });
    const expired = await gw.account({ balance: 1_000_000, key: { kind: 'private' } });
    await gw.services.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', expired.keyId)
      .execute();
    gw.services.keyCache.clear();
    expect(await call({ apiKey: expired.key })).toMatchObject({ status: 401, json: { error_code: 'key_expired' } });
    const fenced = await gw.account({ balance: 1_000_000, key: { kind: 'private', ip_allowlist: ['10.9.9.9'] } });
    expect(await call({ apiKey: fenced.key })).toMatchObject({ status: 403, json: { error_code: 'ip_not_allowed' } });
    const ok = await gw.account({ balance: 1_000_000, key: { kind: 'private' } });
    expect(await call({ apiKey: ok.key, model: 'nope' })).toMatchObject({
      status: 404,
      json: { error_code: 'model_not_found' },
    });
    const broke = await gw.account({ balance: 0, key: { kind: 'private' } });
    expect(await call({ apiKey: broke.key })).toMatchObject({
      status: 402,
      json: { code: 402, error_code: 'insufficient_balance' },
    });
    const limited = await gw.account({ balance: 1_000_000, key: { kind: 'private', rpm_limit: 1 } });
    expect((await call({ apiKey: limited.key })).status).toBe(200);
    const second = await call({ apiKey: limited.key });
    expect(second).toMatchObject({ status: 429, json: { error_code: 'rate_limit_exceeded' } });
    // The failure is the call's state, as getResult shows it.
    expect(second.json.request_id).toBeTruthy();
  });
});

const chat = (text: string) => ({ messages: [{ role: 'user', content: text }], max_tokens: 2 });

describe('a call refused at steps 5-6 is no result', () => {
  it('runs under the same clientRequestId once the balance is credited, charged once', async () => {
    const broke = await gw.account({ balance: 0, key: { kind: 'private' } });
    const body = { apiKey: broke.key, clientRequestId: 'pay-later', input: chat('pay later') };
    const refused = await call(body);
    expect(refused).toMatchObject({ status: 402, json: { code: 402, error_code: 'insufficient_balance' } });
    expect(refused.type).toContain('application/json');
    // Until it is run again, getResult shows the refusal as the call's state.
    const state = await call({ apiKey: broke.key, clientRequestId: 'pay-later' }, 'getResult');
    expect(state.json.data).toMatchObject({ status: 'failed', error: { code: 'insufficient_balance' } });
    await creditBalance(gw.services.db, gw.services.balances, broke.userId, 1_000_000, 'test credit');
    // Twenty retries at once: the refusal is freed once, and they make one new call between them.
    const retries = await Promise.all(Array.from({ length: 20 }, () => call(body)));
    for (const r of retries) expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(new Set(retries.map((r) => r.json.data.task_id)).size).toBe(1);
    const paid = retries[0]!;
    expect(paid.json.data).toMatchObject({ client_request_id: 'pay-later', status: 'succeeded' });
    expect(paid.json.data.task_id).not.toBe(state.json.data.task_id);
    // Now the id names a result: a replay answers it and runs nothing.
    const requests = gw.sim.stats().requests;
    expect((await call(body)).json).toEqual(paid.json);
    expect(gw.sim.stats().requests).toBe(requests);
    await waitForUsage(gw, broke.userId, 2);
    const records = await usageRecords(gw.services.db, broke.userId);
    expect(records.map((r) => r.status_code)).toEqual([402, 200]);
    expect(records[0]!.charged_micro_usd).toBe(0);
    expect(await usersBalance(gw.services.db, broke.userId)).toBe(1_000_000 - records[1]!.charged_micro_usd);
  });

  it('answers a rate limit with Retry-After and X-RateLimit-*, and runs under the same id after the window', async () => {
    const limited = await gw.account({ balance: 1_000_000, key: { kind: 'private', rpm_limit: 1 } });
    expect((await call({ apiKey: limited.key, clientRequestId: 'first', input: chat('one') })).status).toBe(200);
    const body = { apiKey: limited.key, clientRequestId: 'second', input: chat('two') };
    const refused = await call(body);
    expect(refused).toMatchObject({ status: 429, json: { code: 429, error_code: 'rate_limit_exceeded' } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    for (const name of RATE_HEADERS) expect(refused.headers.get(name), name).toMatch(/^\d+/);
    expect(refused.headers.get('X-RateLimit-Remaining-Requests')).toBe('0');
    clock.advance(61_000);
    try {
      const later = await call(body);
      expect(later.status, JSON.stringify(later.json)).toBe(200);
      expect(later.json.data).toMatchObject({ client_request_id: 'second', status: 'succeeded' });
    } finally {
      clock.set(Date.now());
    }
  });

  it('runs under the same id once the concurrency slot is free', async () => {
    const single = await gw.account({ balance: 1_000_000, key: { kind: 'private', concurrency_limit: 1 } });
    const slow = call({ apiKey: single.key, clientRequestId: 'slow', input: chat('slow [[sim:latencyMs=1500]]') });
    // The slow call holds the key's only slot (its upstream takes 1.5 s).
    await new Promise((r) => setTimeout(r, 500));
    const body = { apiKey: single.key, clientRequestId: 'queued-behind', input: chat('behind') };
    const refused = await call(body);
    expect(refused).toMatchObject({ status: 429, json: { error_code: 'rate_limit_exceeded' } });
    expect(refused.json.message).toContain('concurrency');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await slow).status).toBe(200);
    const after = await call(body);
    expect(after.status, JSON.stringify(after.json)).toBe(200);
    expect(after.json.data.status).toBe('succeeded');
  });

  it('answers a standard_v1 stream refused before its first byte in the private envelope, and runs it later', async () => {
    const broke = await gw.account({ balance: 0, key: { kind: 'private' } });
    const body = { apiKey: broke.key, clientRequestId: 'stream-later', stream: true, input: chat('stream') };
    const refused = await call(body);
    expect(refused.status).toBe(402);
    expect(refused.type).toContain('application/json');
    expect(refused.json).toEqual({
      code: 402,
      message: expect.any(String),
      request_id: refused.headers.get('x-request-id'),
      error_code: 'insufficient_balance',
    });
    const limited = await gw.account({ balance: 1_000_000, key: { kind: 'private', rpm_limit: 1 } });
    await call({ apiKey: limited.key, input: chat('uses the minute') });
    const throttled = await call({ apiKey: limited.key, stream: true, input: chat('stream') });
    expect(throttled).toMatchObject({ status: 429, json: { code: 429, error_code: 'rate_limit_exceeded' } });
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    for (const name of RATE_HEADERS) expect(throttled.headers.get(name), name).toMatch(/^\d+/);

    await creditBalance(gw.services.db, gw.services.balances, broke.userId, 1_000_000, 'test credit');
    const res = await fetch(`${gw.url}/server/v1/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-sim', ...body }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(await res.text()).toContain('data: [DONE]');
  });
});

describe('getResult and cancel count against the key rate limits', () => {
  it('counts each as one request, with the limits on the answer and a 429 in the envelope past them', async () => {
    const limited = await gw.account({ balance: 1_000_000, key: { kind: 'private', rpm_limit: 3 } });
    const made = await call({ apiKey: limited.key, clientRequestId: 'counted', input: chat('count me') });
    expect(made.status).toBe(200);
    const lookup = await call({ apiKey: limited.key, clientRequestId: 'counted' }, 'getResult');
    expect(lookup.status).toBe(200);
    expect(lookup.headers.get('X-RateLimit-Limit-Requests')).toBe('3');
    expect(lookup.headers.get('X-RateLimit-Remaining-Requests')).toBe('1');
    const cancel = await call({ apiKey: limited.key, clientRequestId: 'counted' }, 'cancel');
    expect(cancel).toMatchObject({ status: 409, json: { error_code: 'conflict' } });
    expect(cancel.headers.get('X-RateLimit-Remaining-Requests')).toBe('0');
    for (const path of ['getResult', 'cancel']) {
      const over = await call({ apiKey: limited.key, clientRequestId: 'counted' }, path);
      expect(over, path).toMatchObject({ status: 429, json: { code: 429, error_code: 'rate_limit_exceeded' } });
      expect(Number(over.headers.get('retry-after')), path).toBeGreaterThan(0);
      expect(over.headers.get('X-RateLimit-Remaining-Requests'), path).toBe('0');
    }
    // A bad lookup is the client's mistake, named in the envelope; it counts like any request.
    const other = await gw.account({ balance: 1_000_000, key: { kind: 'private' } });
    const bad = await call({ apiKey: other.key, taskId: 42 }, 'getResult');
    expect(bad).toMatchObject({ status: 400, json: { code: 400, error_code: 'invalid_request' } });
    expect(bad.json.message).toContain('taskId');
  });
});
