import { randomBytes } from 'node:crypto';
import { createKey } from '../../shared/keys/manage-keys.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offsetClock } from '../support/gateway.js';
import { usageRecords, usersBalance, waitForUsage } from '../support/money.js';
import { startTaskGateway, VIDEO_MODEL, type TaskGateway } from '../support/task-gateway.js';
import { frames } from '../surfaces/protocol-clients.js';

// The private protocol under /server: ak- keys in the body, calls as durable jobs keyed by
// clientRequestId, the compatibility profiles.
const clock = offsetClock();
let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway({ clock });
});
afterAll(() => gw?.close());

const chatInput = (text = 'hello there') => ({ messages: [{ role: 'user', content: text }], max_tokens: 4 });

async function post(path: string, body: unknown): Promise<{ status: number; type: string; text: string; json: any }> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`${gw.url}/server/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json };
}

async function privateAccount(profile: 'standard_v1' | 'legacy_v1' = 'standard_v1') {
  const acct = await gw.account({ balance: 10_000_000, key: { kind: 'private' } });
  if (profile === 'standard_v1') return acct;
  // legacy_v1 keys come only from the migration command (key:import): the same function it runs.
  const secret = `ak-migrated${randomBytes(16).toString('hex')}`;
  const admin = {
    db: gw.services.db,
    redis: gw.services.redis,
    channel: gw.services.redisKeys.keyInvalidation,
    catalog: gw.services.catalog,
  };
  const { row } = await createKey(admin, acct.userId, { name: 'migrated', compatibility_profile: 'legacy_v1' }, secret);
  return { ...acct, key: secret, keyId: row.id };
}

describe('the private protocol', () => {
  it('runs a chat call as a job and answers its result; a replay answers the same, calls nothing and charges once', async () => {
    const acct = await privateAccount();
    const body = { apiKey: acct.key, clientRequestId: 'order-1', model: 'gpt-sim', input: chatInput() };
    const first = await post('call', body);
    expect(first.status, first.text).toBe(200);
    expect(first.type).toContain('application/json');
    expect(first.json).toMatchObject({
      code: 0,
      message: 'success',
      data: { client_request_id: 'order-1', status: 'succeeded', result: { object: 'chat.completion' } },
    });
    expect(first.json.data.task_id).toMatch(/^pcall_/);
    const requests = gw.sim.stats().requests;
    const again = await post('call', { ...body, wait_ms: 5 });
    expect(again.json).toEqual(first.json);
    expect(gw.sim.stats().requests).toBe(requests);
    const [record] = await waitForUsage(gw, acct.userId, 1);
    expect(await usageRecords(gw.services.db, acct.userId)).toHaveLength(1);
    expect(record).toMatchObject({ surface: 'private', status_code: 200, output_tokens: 4 });

    const byId = await post('getResult', { apiKey: acct.key, taskId: first.json.data.task_id });
    const byClientId = await post('getResult', { apiKey: acct.key, clientRequestId: 'order-1' });
    expect(byId.json).toEqual(first.json);
    expect(byClientId.json).toEqual(first.json);

    const reused = await post('call', { ...body, input: chatInput('something else') });
    expect(reused.status).toBe(422);
    expect(reused.json).toMatchObject({
      code: 422,
      error_code: 'idempotency_key_reused',
      request_id: expect.any(String),
    });
  });

  it('creates one call for 100 concurrent duplicates', async () => {
    const acct = await privateAccount();
    const body = { apiKey: acct.key, clientRequestId: 'burst', model: 'gpt-sim', input: chatInput('burst') };
    gw.sim.resetStats();
    const answers = await Promise.all(Array.from({ length: 100 }, () => post('call', body)));
    for (const a of answers) expect(a.status, a.text).toBe(200);
    expect(new Set(answers.map((a) => a.json.data.task_id)).size).toBe(1);
    await waitForUsage(gw, acct.userId, 1);
    expect(await usageRecords(gw.services.db, acct.userId)).toHaveLength(1);
    expect(gw.sim.stats().byModel['sim-model']).toBe(1);
  });

  it('frees a clientRequestId after 24 hours', async () => {
    const acct = await privateAccount();
    const body = { apiKey: acct.key, clientRequestId: 'daily', model: 'gpt-sim', input: chatInput() };
    const first = await post('call', body);
    clock.advance(24 * 60 * 60 * 1000 + 1000);
    try {
      const later = await post('call', body);
      expect(later.json.data.status).toBe('succeeded');
      expect(later.json.data.task_id).not.toBe(first.json.data.task_id);
      expect((await post('getResult', { apiKey: acct.key, clientRequestId: 'daily' })).json.data.task_id).toBe(
        later.json.data.task_id,
      );
    } finally {
      clock.set(Date.now());
    }
  });

  it("answers a miss per profile, and another owner's ids are a miss", async () => {
    const standard = await privateAccount();
    const legacy = await privateAccount('legacy_v1');
    const mine = await post('call', {
      apiKey: standard.key,
      clientRequestId: 'mine',
      model: 'gpt-sim',
      input: chatInput(),
    });
    const miss = await post('getResult', { apiKey: standard.key, clientRequestId: 'nothing' });
    expect(miss.status).toBe(404);
    expect(miss.json).toMatchObject({ code: -1, message: 'task not found' });
    const legacyMiss = await post('getResult', { apiKey: legacy.key, clientRequestId: 'nothing' });
    expect(legacyMiss.status).toBe(200);
    expect(legacyMiss.text).toBe('');
    expect(legacyMiss.type).toContain('text/plain');
    // Cross-user access is denied, exactly like a miss.
    expect((await post('getResult', { apiKey: legacy.key, taskId: mine.json.data.task_id })).text).toBe('');
    const other = await privateAccount();
    const cross = await post('getResult', { apiKey: other.key, taskId: mine.json.data.task_id });
    expect(cross.status).toBe(404);
    expect(cross.json).toMatchObject({ code: -1, message: 'task not found' });
  });

  it('answers legacy_v1 keys as text/plain with the same JSON bytes, streams buffered', async () => {
    const legacy = await privateAccount('legacy_v1');
    const res = await post('call', {
      apiKey: legacy.key,
      clientRequestId: 'old-1',
      model: 'gpt-sim',
      input: chatInput(),
    });
    expect(res.status).toBe(200);
    expect(res.type).toContain('text/plain');
    expect(JSON.parse(res.text)).toMatchObject({
      code: 0,
      data: { status: 'succeeded', result: { object: 'chat.completion' } },
    });
    const streamed = await post('call', {
      apiKey: legacy.key,
      clientRequestId: 'old-2',
      model: 'gpt-sim',
      stream: true,
      input: chatInput(),
    });
    expect(streamed.type).toContain('text/plain');
    expect(JSON.parse(streamed.text)).toMatchObject({
      code: 0,
      data: { status: 'succeeded', result: { choices: [{ message: { content: expect.stringContaining('tok1') } }] } },
    });
  });

  it('streams real SSE under standard_v1 and keeps the result for getResult', async () => {
    const acct = await privateAccount();
    const res = await fetch(`${gw.url}/server/v1/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiKey: acct.key,
        clientRequestId: 's-1',
        model: 'gpt-sim',
        stream: true,
        input: chatInput(),
      }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = frames(await res.text());
    expect(events.at(-1)?.data).toBe('[DONE]');
    const text = events
      .slice(0, -1)
      .map((f) => JSON.parse(f.data).choices[0]?.delta?.content ?? '')
      .join('');
    expect(text).toBe('tok1 tok2 tok3 tok4 ');
    const result = await post('getResult', { apiKey: acct.key, clientRequestId: 's-1' });
    expect(result.json.data).toMatchObject({
      status: 'succeeded',
      result: { choices: [{ message: { content: text }, finish_reason: 'length' }] },
    });
  });

  it('runs a video through the private protocol to stored_url', async () => {
    const acct = await privateAccount();
    const created = await post('call', {
      apiKey: acct.key,
      clientRequestId: 'clip-1',
      model: VIDEO_MODEL,
      input: { content: [{ type: 'text', text: 'a fox' }] },
    });
    expect(created.status, created.text).toBe(200);
    expect(['queued', 'running']).toContain(created.json.data.status);
    let view = created.json.data;
    for (let i = 0; i < 100 && view.status !== 'succeeded'; i++) {
      view = (await post('getResult', { apiKey: acct.key, clientRequestId: 'clip-1' })).json.data;
      if (view.status !== 'succeeded') await new Promise((r) => setTimeout(r, 100));
    }
    expect(view.status).toBe('succeeded');
    expect(view.result.stored_url).toContain('/v1/files/');
    expect((await fetch(view.result.stored_url)).status).toBe(200);
    const chat = await post('call', {
      apiKey: acct.key,
      clientRequestId: 'chat-x',
      model: 'gpt-sim',
      input: chatInput(),
    });
    expect((await post('cancel', { apiKey: acct.key, taskId: chat.json.data.task_id })).json).toMatchObject({
      code: 409,
      error_code: 'conflict',
    });
  });

  it('wakes a task call that waits when its task ends, not when its wait_ms runs out', async () => {
    const acct = await privateAccount();
    const started = performance.now();
    const waited = await post('call', {
      apiKey: acct.key,
      clientRequestId: 'clip-wait',
      model: VIDEO_MODEL,
      wait_ms: 100_000,
      input: { content: [{ type: 'text', text: 'a heron' }] },
    });
    const elapsedMs = performance.now() - started;
    expect(waited.status, waited.text).toBe(200);
    expect(waited.json.data).toMatchObject({ client_request_id: 'clip-wait', status: 'succeeded' });
    expect(waited.json.data.result.stored_url).toContain('/v1/files/');
    // The simulated task takes a few seconds; the call answers then, far within its 100 s wait.
    expect(elapsedMs).toBeLessThan(20_000);
  });

  it('takes only ak- keys, from the body, after reading it; and refuses bad input by name without charging', async () => {
    const acct = await privateAccount();
    const standard = await gw.account({ balance: 1_000_000 });
    const missing = await post('call', { clientRequestId: 'x', model: 'gpt-sim', input: chatInput() });
    expect(missing).toMatchObject({ status: 401, json: { code: 401, error_code: 'invalid_api_key' } });
    const sk = await post('call', { apiKey: standard.key, clientRequestId: 'x', model: 'gpt-sim', input: chatInput() });
    expect(sk.json).toMatchObject({
      code: 401,
      error_code: 'invalid_api_key',
      message: expect.stringContaining('ak-'),
    });
    expect((await post('call', '{"apiKey":')).json).toMatchObject({ code: 400, error_code: 'invalid_json' });
    const cases: [Record<string, unknown>, number, string][] = [
      [{ model: 'gpt-sim', input: chatInput() }, 400, 'invalid_request'],
      [{ clientRequestId: '', model: 'gpt-sim', input: chatInput() }, 400, 'invalid_request'],
      [{ clientRequestId: 'x', model: 'gpt-sim', input: { messages: 'nope' } }, 400, 'invalid_request'],
      [{ clientRequestId: 'x', model: 'no-such-model', input: chatInput() }, 404, 'model_not_found'],
      [{ clientRequestId: 'x', model: 'gpt-sim', wait_ms: 500_000, input: chatInput() }, 400, 'invalid_request'],
    ];
    for (const [body, status, code] of cases) {
      const res = await post('call', { apiKey: acct.key, ...body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.json.error_code).toBe(code);
    }
    const field = await post('call', {
      apiKey: acct.key,
      clientRequestId: 'x',
      model: 'gpt-sim',
      input: { messages: 'nope' },
    });
    expect(field.json.message).toContain('input.messages');
    const huge = await post('call', {
      apiKey: acct.key,
      clientRequestId: 'x',
      model: 'gpt-sim',
      input: { messages: [{ role: 'user', content: 'x'.repeat(11 * 1024 * 1024) }] },
    });
    expect(huge.json).toMatchObject({ error_code: 'body_too_large' });
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(10_000_000);
  });
});
