import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../shared/keys/manage-keys.js';
import { usageRecords, waitForUsage } from '../support/money.js';
import { startTaskGateway, type TaskGateway } from '../support/task-gateway.js';

// A private chat call answers whole however long its upstream takes (bounded only by the upstream's
// time-outs); wait_ms is a standard_v1 client's opt-in for an early answer, and nothing else.
let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway();
});
afterAll(() => gw?.close());

const slowInput = (latencyMs: number) => ({
  messages: [{ role: 'user', content: `take your time [[sim:latencyMs=${latencyMs}]]` }],
  max_tokens: 3,
});

async function post(path: string, body: unknown) {
  const res = await fetch(`${gw.url}/server/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the envelope, checked field by field
  return { status: res.status, type: res.headers.get('content-type') ?? '', json: (await res.json()) as any };
}

async function legacyKey(): Promise<{ key: string; userId: string }> {
  const acct = await gw.account({ balance: 5_000_000, key: { kind: 'private' } });
  // legacy_v1 keys come only from the migration command (key:import): the same function it runs.
  const admin = {
    db: gw.services.db,
    redis: gw.services.redis,
    channel: gw.services.redisKeys.keyInvalidation,
    catalog: gw.services.catalog,
  };
  const secret = `ak-migrated${randomBytes(16).toString('hex')}`;
  await createKey(admin, acct.userId, { name: 'migrated', compatibility_profile: 'legacy_v1' }, secret);
  return { key: secret, userId: acct.userId };
}

describe('the whole answer of a private chat call', () => {
  it('waits past the old 30 s default for an upstream that takes 31 s: the completion, never running', async () => {
    const acct = await gw.account({ balance: 5_000_000, key: { kind: 'private' } });
    const started = performance.now();
    const answer = await post('call', {
      apiKey: acct.key,
      clientRequestId: 'long-one',
      model: 'gpt-sim',
      input: slowInput(31_000),
    });
    expect(performance.now() - started).toBeGreaterThan(30_000);
    expect(answer.status).toBe(200);
    expect(answer.json.data).toMatchObject({
      status: 'succeeded',
      result: { object: 'chat.completion', choices: [{ finish_reason: 'length' }] },
    });
    await waitForUsage(gw, acct.userId, 1);
    expect(await usageRecords(gw.services.db, acct.userId)).toHaveLength(1);
  }, 60_000);

  it('ignores wait_ms under legacy_v1: a stream=true call and a plain one answer whole', async () => {
    const legacy = await legacyKey();
    for (const stream of [true, false]) {
      const answer = await post('call', {
        apiKey: legacy.key,
        clientRequestId: `legacy-${stream}`,
        model: 'gpt-sim',
        stream,
        wait_ms: 100,
        input: slowInput(1_500),
      });
      expect(answer.type).toContain('text/plain');
      expect(answer.json.data, `stream ${stream}`).toMatchObject({
        status: 'succeeded',
        result: { object: 'chat.completion', choices: [{ message: { content: expect.any(String) } }] },
      });
    }
  });

  it('answers early only when a standard_v1 client asks with wait_ms; a replay without it waits for the whole', async () => {
    const acct = await gw.account({ balance: 5_000_000, key: { kind: 'private' } });
    const body = { apiKey: acct.key, clientRequestId: 'early', model: 'gpt-sim', input: slowInput(1_500) };
    const early = await post('call', { ...body, wait_ms: 100 });
    expect(early.json.data).toMatchObject({
      client_request_id: 'early',
      status: expect.stringMatching(/queued|running/),
    });
    expect(early.json.data.result).toBeUndefined();
    const whole = await post('call', body);
    expect(whole.json.data).toMatchObject({
      task_id: early.json.data.task_id,
      status: 'succeeded',
      result: { object: 'chat.completion' },
    });
    const now = await post('call', { ...body, wait_ms: 0 });
    expect(now.json).toEqual(whole.json);
    await waitForUsage(gw, acct.userId, 1);
    expect(await usageRecords(gw.services.db, acct.userId)).toHaveLength(1);
  });
});

describe('a client that hangs up while its call runs', () => {
  it('stops waiting; the call still completes, charged once, and getResult returns it', async () => {
    const acct = await gw.account({ balance: 5_000_000, key: { kind: 'private' } });
    const body = { apiKey: acct.key, clientRequestId: 'gone', model: 'gpt-sim', input: slowInput(1_500) };
    const hangUp = new AbortController();
    const pending = fetch(`${gw.url}/server/v1/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: hangUp.signal,
    }).catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 300));
    hangUp.abort();
    expect(await pending).toBeInstanceOf(Error);
    let view = { status: 'queued' } as { status: string; result?: unknown };
    for (let i = 0; i < 100 && view.status !== 'succeeded'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      view = (await post('getResult', { apiKey: acct.key, clientRequestId: 'gone' })).json.data;
    }
    expect(view).toMatchObject({ status: 'succeeded', result: { object: 'chat.completion' } });
    await waitForUsage(gw, acct.userId, 1);
    expect(await usageRecords(gw.services.db, acct.userId)).toHaveLength(1);
  });
});
