// A replay answers the first result, whatever changed since the first call: the stored result is
// looked up before routing, pricing, assets, image fetches and step 4 (docs/reference/idempotency.md).
// And a call refused before it was accepted stored nothing: once the cause is fixed, the same key
// runs it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditBalance } from '../../shared/billing/credit.js';
import { updateKey } from '../../shared/keys/manage-keys.js';
import { uploadAsset } from '../support/assets.js';
import { offsetClock } from '../support/gateway.js';
import { waitUntil } from '../support/http.js';
import { pngOfSize } from '../support/images.js';
import { FETCHING_MODEL, startImageHost, taskCatalogWithFetching, type ImageHost } from '../support/image-host.js';
import { errorOf, postJson, type JsonReply } from '../support/limits.js';
import { usersBalance } from '../support/money.js';
import { startSecondApi } from '../support/second-api.js';
import {
  chargeRows,
  createVideo,
  IMAGE_MODEL,
  IMAGE_PER_IMAGE,
  startTaskGateway,
  taskRows,
  videoBody,
  VIDEO_MODEL,
  VIDEO_PER_SECOND,
  VIDEO_UPSTREAM,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

const PRICE = 5 * VIDEO_PER_SECOND['720p']!;
const IMAGE_PRICE = IMAGE_PER_IMAGE['1024x1024']!;
const VIDEO_ROUTE = `tasks-sim/default:${VIDEO_UPSTREAM}`;

const catalog = taskCatalogWithFetching;

/** An image host that counts what it serves. */
let images: ImageHost;
const clock = offsetClock();
let gw: TaskGateway;
beforeAll(async () => {
  images = await startImageHost();
  gw = await startTaskGateway({
    clock,
    // Routes rest (the breaker reads their health) for a minute: an outage lasts until the test ends it.
    env: {
      ROUTING_BREAKER_THRESHOLD: '2',
      ROUTING_BREAKER_COOLDOWN_MS: '60000',
      IMAGE_FETCH_TRUSTED_ADDRESSES: '127.0.0.1',
    },
    catalog,
  });
});
afterAll(async () => {
  await gw?.close();
  await images?.close();
});

const admin = () => ({
  db: gw.services.db,
  redis: gw.services.redis,
  channel: gw.services.redisKeys.keyInvalidation,
  catalog: gw.services.catalog,
});

/** Every account of the video model rests (as after repeated upstream failures), until `end`. */
async function outage(route = VIDEO_ROUTE): Promise<{ end(): Promise<void> }> {
  await gw.services.routing.health.failure(route, 60_000);
  return { end: () => gw.services.routing.health.success(route) };
}

/** Moves the key to another group, and waits until the gateway's key cache has it. */
async function setGroup(acct: { userId: string; keyId: string; key: string }, group: string, expect403: boolean) {
  await updateKey(admin(), acct.userId, acct.keyId, { group });
  // A probe that creates nothing: a duration the model does not offer is refused after step 4.
  const probe = videoBody('probe', { duration: 7 });
  await waitUntil(async () => (await createVideo(gw, acct.key, probe)).status === (expect403 ? 403 : 400), 5_000);
}

/** The replay of `first`: the same status and body, marked replayed, for the same model. */
function expectReplayOf(replay: JsonReply, first: JsonReply, label: string) {
  expect(replay.status, `${label}: ${JSON.stringify(replay.json)}`).toBe(first.status);
  expect(replay.json, label).toEqual(first.json);
  expect(replay.headers.get('idempotent-replayed'), label).toBe('true');
  expect(replay.headers.get('x-service-model'), label).toBe(first.headers.get('x-service-model'));
}

/** Nothing more was created, submitted or charged than the one task. */
async function expectOneTask(userId: string, taskId: string, price: number, funds: number) {
  expect((await taskRows(gw, userId)).map((t) => t.id)).toEqual([taskId]);
  expect((await waitSettled(gw, taskId)).status).toBe('succeeded');
  expect((await chargeRows(gw, userId)).map((c) => [c.request_id, c.amount_micro_usd])).toEqual([[taskId, -price]]);
  expect(await usersBalance(gw.services.db, userId)).toBe(funds - price);
}

describe('a replay answers the first result, whatever changed since', () => {
  it('during an upstream outage (every account of the model resting): nothing submitted', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const headers = { 'idempotency-key': 'outage' };
    const first = await createVideo(gw, a.key, videoBody('before the outage'), headers);
    expect(first.status).toBe(200);
    await waitSettled(gw, first.json.id);
    const submits = gw.sim.stats().tasks['content-tasks'].taskCreateRequests;
    const down = await outage();
    try {
      // Without a key the outage shows: the same call is refused.
      expect((await createVideo(gw, a.key, videoBody('before the outage'))).status).toBe(503);
      expectReplayOf(await createVideo(gw, a.key, videoBody('before the outage'), headers), first, 'outage');
    } finally {
      await down.end();
    }
    expect(gw.sim.stats().tasks['content-tasks'].taskCreateRequests).toBe(submits);
    await expectOneTask(a.userId, first.json.id, PRICE, 10 * PRICE);
  });

  it('after the referenced asset was deleted', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const asset = await uploadAsset(gw, a.key, pngOfSize(300));
    const body = {
      model: VIDEO_MODEL,
      content: [
        { type: 'text', text: 'from this frame' },
        { type: 'image_url', role: 'first_frame', image_url: { url: asset.reference } },
      ],
    };
    const headers = { 'idempotency-key': 'with-asset' };
    const first = await createVideo(gw, a.key, body, headers);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const del = await fetch(`${gw.url}/v1/assets/${asset.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${a.key}` },
    });
    expect(del.status).toBe(204);
    expect((await createVideo(gw, a.key, body)).status).toBe(400);
    expectReplayOf(await createVideo(gw, a.key, body, headers), first, 'asset deleted');
    await expectOneTask(a.userId, first.json.id, PRICE, 10 * PRICE);
  });

  it("after the key's group lost the model (step 4 now refuses it)", async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const headers = { 'idempotency-key': 'group-change' };
    const first = await createVideo(gw, a.key, videoBody('while allowed'), headers);
    expect(first.status).toBe(200);
    await setGroup(a, 'basic', true);
    expectReplayOf(await createVideo(gw, a.key, videoBody('while allowed'), headers), first, 'group lost the model');
    await expectOneTask(a.userId, first.json.id, PRICE, 10 * PRICE);
  });

  it('after the catalog changed: on an API started with the model re-priced, or removed', async () => {
    const a = await gw.account({ balance: 10 * PRICE + 10 * IMAGE_PRICE });
    const video = await createVideo(gw, a.key, videoBody('old catalog'), { 'idempotency-key': 'catalog-v' });
    const imageBody = { model: IMAGE_MODEL, prompt: 'old catalog' };
    const image = await postJson(gw, '/v1/images/tasks', a.key, imageBody, { 'idempotency-key': 'catalog-i' });
    expect([video.status, image.status]).toEqual([200, 200]);
    const next = await startSecondApi(gw, (url) => {
      const base = catalog(url);
      const models = base.models
        .filter((m) => m.id !== IMAGE_MODEL)
        .map((m) =>
          m.id === VIDEO_MODEL ? { ...m, pricing: { per_second: { '720p': 99_000, '1080p': 99_000 } } } : m,
        );
      return { ...base, models };
    });
    try {
      // The new catalog shows without a key: the image model is gone.
      expect((await postJson(next.url, '/v1/images/tasks', a.key, imageBody)).status).toBe(404);
      const v = await postJson(next.url, '/v1/videos', a.key, videoBody('old catalog'), {
        'idempotency-key': 'catalog-v',
      });
      const i = await postJson(next.url, '/v1/images/tasks', a.key, imageBody, { 'idempotency-key': 'catalog-i' });
      expectReplayOf(v, video, 're-priced');
      expectReplayOf(i, image, 'removed');
    } finally {
      await next.close();
    }
    for (const id of [video.json.id, image.json.id]) expect((await waitSettled(gw, id)).status).toBe('succeeded');
    expect((await chargeRows(gw, a.userId)).map((c) => c.amount_micro_usd).sort()).toEqual(
      [-PRICE, -IMAGE_PRICE].sort(),
    );
  });

  it('without fetching an external image again (a model that cannot fetch URLs: the gateway re-hosts them)', async () => {
    const a = await gw.account({ balance: 10 * IMAGE_PRICE });
    const body = { model: FETCHING_MODEL, prompt: 'like this', image: `${images.url}/ref.png` };
    const headers = { 'idempotency-key': 'fetching' };
    const before = images.served;
    const first = await postJson(gw, '/v1/images/tasks', a.key, body, headers);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(images.served).toBe(before + 1);
    expectReplayOf(await postJson(gw, '/v1/images/tasks', a.key, body, headers), first, 're-hosted image');
    expect(images.served).toBe(before + 1);
    await expectOneTask(a.userId, first.json.id, IMAGE_PRICE, 10 * IMAGE_PRICE);
  });

  it('after the balance ran out: nothing is reserved for a replay', async () => {
    const a = await gw.account({ balance: PRICE });
    const headers = { 'idempotency-key': 'last-money' };
    const first = await createVideo(gw, a.key, videoBody('the last one'), headers);
    expect(first.status).toBe(200);
    expect((await createVideo(gw, a.key, videoBody('one more'))).status).toBe(402);
    expectReplayOf(await createVideo(gw, a.key, videoBody('the last one'), headers), first, 'no balance left');
    await expectOneTask(a.userId, first.json.id, PRICE, PRICE);
  });
});

describe('a call refused before it was accepted is not a result: the same key runs it once the cause is fixed', () => {
  /** The refusal, then the same key accepted as a new task (not a replay, not 422). */
  async function refusedThenRun(
    acct: { userId: string; key: string },
    idempotencyKey: string,
    refused: { body: unknown; status: number; code: string },
    fix: () => Promise<void>,
    body: unknown = refused.body,
  ): Promise<void> {
    const headers = { 'idempotency-key': idempotencyKey };
    const no = await createVideo(gw, acct.key, refused.body, headers);
    expect(no.status, JSON.stringify(no.json)).toBe(refused.status);
    expect(errorOf(no).code).toBe(refused.code);
    await fix();
    const yes = await createVideo(gw, acct.key, body, headers);
    expect(yes.status, JSON.stringify(yes.json)).toBe(200);
    expect(yes.headers.get('idempotent-replayed')).toBeNull();
    expect((await waitSettled(gw, yes.json.id)).status).toBe('succeeded');
    // And from now on the key replays that task.
    const again = await createVideo(gw, acct.key, body, headers);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.id).toBe(yes.json.id);
    expect((await chargeRows(gw, acct.userId)).map((c) => c.request_id)).toEqual([yes.json.id]);
  }

  it('validation (400): the corrected body runs under the same key', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const invalid = videoBody('seven seconds', { duration: 7 });
    await refusedThenRun(
      a,
      'fix-the-body',
      { body: invalid, status: 400, code: 'invalid_request' },
      async () => {},
      videoBody('seven seconds', { duration: 5 }),
    );
  });

  it("step 4 (403 model_not_allowed), until the key's group allows the model", async () => {
    const a = await gw.account({ balance: 10 * PRICE, key: { group: 'basic' } });
    await refusedThenRun(
      a,
      'after-the-group',
      { body: videoBody('not yet allowed'), status: 403, code: 'model_not_allowed' },
      () => setGroup(a, 'default', false),
    );
  });

  it('the balance (402), until the account is credited', async () => {
    const a = await gw.account({ balance: PRICE - 1 });
    await refusedThenRun(
      a,
      'after-the-credit',
      { body: videoBody('once paid'), status: 402, code: 'insufficient_balance' },
      async () => {
        await creditBalance(gw.services.db, gw.services.balances, a.userId, PRICE, 'test credit');
      },
    );
  });

  it('the rate limit (429), until its window passed', async () => {
    const a = await gw.account({ balance: 10 * PRICE, key: { rpm_limit: 1 } });
    const used = await createVideo(gw, a.key, videoBody('the one call of this minute'));
    expect(used.status).toBe(200);
    await waitSettled(gw, used.json.id);
    const headers = { 'idempotency-key': 'after-the-window' };
    const no = await createVideo(gw, a.key, videoBody('next minute'), headers);
    expect(no.status).toBe(429);
    clock.advance(61_000);
    const yes = await createVideo(gw, a.key, videoBody('next minute'), headers);
    expect(yes.status, JSON.stringify(yes.json)).toBe(200);
    expect(yes.headers.get('idempotent-replayed')).toBeNull();
    await waitSettled(gw, yes.json.id);
    expect((await chargeRows(gw, a.userId)).map((c) => c.request_id).sort()).toEqual(
      [used.json.id, yes.json.id].sort(),
    );
  });

  it('an upstream outage (503 upstream_unavailable), until an account is back', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    let down: { end(): Promise<void> } | undefined = await outage();
    try {
      await refusedThenRun(
        a,
        'after-the-outage',
        { body: videoBody('when it is back'), status: 503, code: 'upstream_unavailable' },
        async () => {
          await down!.end();
          down = undefined;
        },
      );
    } finally {
      await down?.end();
    }
  });
});
