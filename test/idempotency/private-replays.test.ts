// The private protocol's clientRequestId, replayed after what a replay must not depend on changed:
// which kind of call the model is (the catalog), step 4 (the key's group), routing (an outage). The
// call is looked up first, chat call or task, and answered as it is (docs/reference/idempotency.md).
// A task call refused before it was accepted stored nothing: the same id runs it once fixed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditBalance } from '../../shared/billing/credit.js';
import { updateKey } from '../../shared/keys/manage-keys.js';
import { waitUntil } from '../support/http.js';
import type { Json } from '../support/limits.js';
import { usageRecords, waitForUsage } from '../support/money.js';
import { startSecondApi } from '../support/second-api.js';
import {
  chargeRows,
  startTaskGateway,
  taskCatalog,
  taskRows,
  VIDEO_MODEL,
  VIDEO_PER_SECOND,
  VIDEO_UPSTREAM,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

const PRICE = 5 * VIDEO_PER_SECOND['720p']!;
const ROUTES = { video: `tasks-sim/default:${VIDEO_UPSTREAM}`, chat: 'sim/default:sim-model' };

type CatalogDoc = { models: Array<{ id: string }>; groups: Array<{ id: string; models: string[] }> };

/** The task catalog, and a group `locked` that allows neither the video model nor gpt-sim. */
function catalog(simUrl: string): CatalogDoc {
  const base = taskCatalog(simUrl) as unknown as CatalogDoc;
  return { ...base, groups: [...base.groups, { id: 'locked', models: ['free-sim'] }] };
}

let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway({
    catalog,
    env: { ROUTING_BREAKER_THRESHOLD: '2', ROUTING_BREAKER_COOLDOWN_MS: '60000' },
  });
});
afterAll(() => gw?.close());

type Reply = { status: number; json: Json };

async function post(base: string, path: string, body: unknown): Promise<Reply> {
  const res = await fetch(`${base}/server/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const chatInput = (text: string) => ({ messages: [{ role: 'user', content: text }], max_tokens: 4 });
const videoInput = (text: string, extra: Record<string, unknown> = {}) => ({
  content: [{ type: 'text', text }],
  ...extra,
});

/** What changes between the first call and its replay, each undone afterwards. */
async function withEveryChange(
  acct: { userId: string; keyId: string; key: string },
  replay: (base: string, label: string) => Promise<void>,
): Promise<void> {
  // An API started with a catalog that has neither model any more.
  const gone = new Set([VIDEO_MODEL, 'gpt-sim']);
  const next = await startSecondApi(gw, (url) => {
    const base = catalog(url);
    const models = base.models.filter((m) => !gone.has(m.id));
    const groups = base.groups.map((g) => ({ ...g, models: g.models.filter((m) => !gone.has(m)) }));
    return { ...base, models, groups };
  });
  try {
    await replay(next.url, 'the model removed from the catalog');
  } finally {
    await next.close();
  }
  for (const route of Object.values(ROUTES)) await gw.services.routing.health.failure(route, 60_000);
  try {
    await replay(gw.url, 'every account resting');
  } finally {
    for (const route of Object.values(ROUTES)) await gw.services.routing.health.success(route);
  }
  const admin = {
    db: gw.services.db,
    redis: gw.services.redis,
    channel: gw.services.redisKeys.keyInvalidation,
    catalog: gw.services.catalog,
  };
  // `locked` allows neither model; the key cache hears of the change through Redis. (A probe call would
  // run, and be replayed, if it arrived before the change did: the cache itself is what is waited on.)
  await updateKey(admin, acct.userId, acct.keyId, { group: 'locked' });
  await waitUntil(async () => (await gw.services.keyCache.lookup(acct.key))?.groupId === 'locked', 5_000, 10);
  const probe = { apiKey: acct.key, clientRequestId: 'probe', model: VIDEO_MODEL, input: videoInput('p') };
  expect((await post(gw.url, 'call', probe)).status).toBe(403);
  await replay(gw.url, "the key's group no longer allowing the model");
}

describe('a private call replayed after what it may not depend on changed', () => {
  it('a task call answers its task, created and charged once', async () => {
    const acct = await gw.account({ balance: 10 * PRICE, key: { kind: 'private' } });
    const body = { apiKey: acct.key, clientRequestId: 'video-1', model: VIDEO_MODEL, input: videoInput('a kite') };
    const first = await post(gw.url, 'call', body);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const taskId = first.json.data.task_id as string;
    await waitSettled(gw, taskId);
    const submits = gw.sim.stats().tasks['content-tasks'].taskCreateRequests;
    await withEveryChange(acct, async (base, label) => {
      const again = await post(base, 'call', body);
      expect(again.status, `${label}: ${JSON.stringify(again.json)}`).toBe(200);
      expect(again.json.data, label).toMatchObject({
        task_id: taskId,
        client_request_id: 'video-1',
        status: 'succeeded',
      });
    });
    expect(gw.sim.stats().tasks['content-tasks'].taskCreateRequests).toBe(submits);
    expect((await taskRows(gw, acct.userId)).map((t) => t.id)).toEqual([taskId]);
    expect((await chargeRows(gw, acct.userId)).map((c) => c.request_id)).toEqual([taskId]);
  });

  it('a chat call answers its first answer; nothing runs again', async () => {
    const acct = await gw.account({ balance: 10_000_000, key: { kind: 'private' } });
    const body = { apiKey: acct.key, clientRequestId: 'chat-1', model: 'gpt-sim', input: chatInput('hello') };
    const first = await post(gw.url, 'call', body);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(first.json.data.status).toBe('succeeded');
    const streamed = { ...body, clientRequestId: 'chat-2', stream: true };
    const firstStream = await fetch(`${gw.url}/server/v1/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(streamed),
    });
    expect(await firstStream.text()).toContain('[DONE]');
    await waitForUsage(gw, acct.userId, 2);
    const calls = gw.sim.stats().requests;
    await withEveryChange(acct, async (base, label) => {
      const again = await post(base, 'call', body);
      expect(again.json, label).toEqual(first.json);
      // A replayed stream answers the call's state as JSON.
      const state = await post(base, 'call', streamed);
      expect(state.json.data, label).toMatchObject({ client_request_id: 'chat-2', status: 'succeeded' });
    });
    expect(gw.sim.stats().requests).toBe(calls);
    expect(await usageRecords(gw.services.db, acct.userId)).toHaveLength(2);
  });
});

describe('a private task call refused before it was accepted stored nothing', () => {
  it('refused for its balance (402), the same clientRequestId runs it once the account is credited', async () => {
    const acct = await gw.account({ balance: PRICE - 1, key: { kind: 'private' } });
    const body = { apiKey: acct.key, clientRequestId: 'when-paid', model: VIDEO_MODEL, input: videoInput('paid') };
    const no = await post(gw.url, 'call', body);
    expect(no.status).toBe(402);
    expect(no.json.error_code).toBe('insufficient_balance');
    await creditBalance(gw.services.db, gw.services.balances, acct.userId, PRICE, 'test credit');
    const yes = await post(gw.url, 'call', body);
    expect(yes.status, JSON.stringify(yes.json)).toBe(200);
    expect(yes.json.data.status).toBe('queued');
    expect((await waitSettled(gw, yes.json.data.task_id)).status).toBe('succeeded');
  });

  it('refused for its input (400), the corrected input runs under the same clientRequestId (not 422)', async () => {
    const acct = await gw.account({ balance: 10 * PRICE, key: { kind: 'private' } });
    const body = { apiKey: acct.key, clientRequestId: 'fixed', model: VIDEO_MODEL, input: videoInput('x') };
    const no = await post(gw.url, 'call', { ...body, input: videoInput('x', { duration: 7 }) });
    expect(no.status).toBe(400);
    const yes = await post(gw.url, 'call', body);
    expect(yes.status, JSON.stringify(yes.json)).toBe(200);
    await waitSettled(gw, yes.json.data.task_id);
  });
});
