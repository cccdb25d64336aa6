// The rows of docs/reference/idempotency.md about what a call carries and what it may spend: a
// replay after the key's rate limit is spent, and a private-protocol replay after its asset was
// deleted or its external image re-hosted, answer the first result without fetching anything; a
// call refused for its size (413) or for a reference or image it cannot use stored nothing, so the
// same Idempotency-Key / clientRequestId runs the call once the cause is fixed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, updateKey } from '../../shared/keys/manage-keys.js';
import { uploadAsset } from '../support/assets.js';
import { waitUntil } from '../support/http.js';
import { FETCHING_MODEL, startImageHost, taskCatalogWithFetching, type ImageHost } from '../support/image-host.js';
import { pngOfSize } from '../support/images.js';
import { errorOf, postJson, type JsonReply } from '../support/limits.js';
import {
  chargeRows,
  createVideo,
  IMAGE_PER_IMAGE,
  startTaskGateway,
  taskRows,
  videoBody,
  VIDEO_MODEL,
  VIDEO_PER_SECOND,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

const PRICE = 5 * VIDEO_PER_SECOND['720p']!;
const IMAGE_PRICE = IMAGE_PER_IMAGE['1024x1024']!;
const BODY_LIMIT = 64 * 1024;
const MISSING_ASSET = 'asset://asset_AAAAAAAAAAAAAAAAAAAA';

let images: ImageHost;
let gw: TaskGateway;
beforeAll(async () => {
  images = await startImageHost();
  gw = await startTaskGateway({
    env: { IMAGE_FETCH_TRUSTED_ADDRESSES: '127.0.0.1', BODY_LIMIT_BYTES: String(BODY_LIMIT) },
    catalog: taskCatalogWithFetching,
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

/** A second key of the same account (`sk-`, asset access `all`): it uploads and deletes the assets a private key refers to. */
async function uploaderOf(userId: string): Promise<string> {
  return (await createKey(admin(), userId, { asset_access: 'all' })).key;
}

const privateCall = (body: unknown) => postJson(gw, '/server/v1/call', undefined, body);

const frameOf = (url: string) => [
  { type: 'text', text: 'from this frame' },
  { type: 'image_url', role: 'first_frame', image_url: { url } },
];

/** The refusal of `first`, then the same key accepted as a new call (not a replay, not 422), then replayed. */
async function refusedThenRun(
  send: (body: unknown) => Promise<JsonReply>,
  refused: { body: unknown; status: number; code: string },
  fix: () => Promise<void>,
  accepted: unknown = refused.body,
): Promise<string> {
  const no = await send(refused.body);
  expect(no.status, JSON.stringify(no.json)).toBe(refused.status);
  expect(no.json.error?.code ?? no.json.error_code).toBe(refused.code);
  await fix();
  const yes = await send(accepted);
  expect(yes.status, JSON.stringify(yes.json)).toBe(200);
  expect(yes.headers.get('idempotent-replayed')).toBeNull();
  const id = (yes.json.id ?? yes.json.data.task_id) as string;
  expect((await waitSettled(gw, id)).status).toBe('succeeded');
  const again = await send(accepted);
  expect(again.json.id ?? again.json.data.task_id).toBe(id);
  return id;
}

describe('a replay answers the first result', () => {
  it("after the key's rate limit is spent: nothing is counted for it", async () => {
    const a = await gw.account({ balance: 10 * PRICE, key: { rpm_limit: 1 } });
    const headers = { 'idempotency-key': 'last-request-of-the-minute' };
    const first = await createVideo(gw, a.key, videoBody('the one call of this minute'), headers);
    expect(first.status).toBe(200);
    const spent = await createVideo(gw, a.key, videoBody('one more'));
    expect([spent.status, errorOf(spent).code]).toEqual([429, 'rate_limit_exceeded']);
    for (let i = 0; i < 3; i++) {
      const replay = await createVideo(gw, a.key, videoBody('the one call of this minute'), headers);
      expect(replay.status, JSON.stringify(replay.json)).toBe(200);
      expect(replay.json).toEqual(first.json);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
    }
    await waitSettled(gw, first.json.id);
    expect((await chargeRows(gw, a.userId)).map((c) => c.request_id)).toEqual([first.json.id]);
  });

  it('private protocol: after the referenced asset was deleted, the same task, nothing created again', async () => {
    const a = await gw.account({ balance: 10 * PRICE, key: { kind: 'private', asset_access: 'all' } });
    const uploader = await uploaderOf(a.userId);
    const asset = await uploadAsset(gw, uploader, pngOfSize(300));
    const body = {
      apiKey: a.key,
      clientRequestId: 'with-asset',
      model: VIDEO_MODEL,
      input: { content: frameOf(asset.reference) },
    };
    const first = await privateCall(body);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const taskId = first.json.data.task_id as string;
    await waitSettled(gw, taskId);
    const del = await fetch(`${gw.url}/v1/assets/${asset.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${uploader}` },
    });
    expect(del.status).toBe(204);
    // A new call with the same input shows the asset is gone.
    const fresh = await privateCall({ ...body, clientRequestId: 'after-the-delete' });
    expect([fresh.status, fresh.json.error_code]).toEqual([400, 'reference_asset_unavailable']);
    const replay = await privateCall(body);
    expect(replay.status, JSON.stringify(replay.json)).toBe(200);
    expect(replay.json.data).toMatchObject({ task_id: taskId, client_request_id: 'with-asset', status: 'succeeded' });
    expect((await taskRows(gw, a.userId)).map((t) => t.id)).toEqual([taskId]);
    expect((await chargeRows(gw, a.userId)).map((c) => [c.request_id, c.amount_micro_usd])).toEqual([[taskId, -PRICE]]);
  });

  it('private protocol: an external image re-hosted for a model that cannot fetch it is not fetched again', async () => {
    const a = await gw.account({ balance: 10 * IMAGE_PRICE, key: { kind: 'private' } });
    const body = {
      apiKey: a.key,
      clientRequestId: 'fetching',
      model: FETCHING_MODEL,
      input: { prompt: 'like this', image: `${images.url}/ref.png` },
    };
    const before = images.served;
    const first = await privateCall(body);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(images.served).toBe(before + 1);
    const taskId = first.json.data.task_id as string;
    await waitSettled(gw, taskId);
    const replay = await privateCall(body);
    expect(replay.json.data).toMatchObject({ task_id: taskId, status: 'succeeded' });
    expect(images.served).toBe(before + 1);
    expect((await chargeRows(gw, a.userId)).map((c) => c.request_id)).toEqual([taskId]);
  });
});

describe('a call refused for what it carries stored nothing: the same key runs it once the cause is fixed', () => {
  const tooLarge = (body: Record<string, unknown>, field: 'content' | 'input') => {
    const text = 'x'.repeat(BODY_LIMIT);
    return field === 'content'
      ? { ...body, content: [{ type: 'text', text }] }
      : { ...body, input: { content: [{ type: 'text', text }] } };
  };

  it('a body too large (413): the body that fits runs under the same Idempotency-Key', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const send = (body: unknown) => createVideo(gw, a.key, body, { 'idempotency-key': 'smaller' });
    const fits = videoBody('a shorter prompt');
    const refused = { body: tooLarge(fits, 'content'), status: 413, code: 'body_too_large' };
    const id = await refusedThenRun(send, refused, async () => {}, fits);
    expect((await chargeRows(gw, a.userId)).map((c) => c.request_id)).toEqual([id]);
  });

  it('a body too large (413): the private call that fits runs under the same clientRequestId', async () => {
    const a = await gw.account({ balance: 10 * PRICE, key: { kind: 'private' } });
    const input = { content: [{ type: 'text', text: 'a shorter prompt' }] };
    const fits = { apiKey: a.key, clientRequestId: 'smaller', model: VIDEO_MODEL, input };
    const refused = { body: tooLarge(fits, 'input'), status: 413, code: 'body_too_large' };
    await refusedThenRun(privateCall, refused, async () => {}, fits);
  });

  it('an asset reference that is not available (400): the corrected reference runs under the same key', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const asset = await uploadAsset(gw, a.key, pngOfSize(300));
    const send = (body: unknown) => createVideo(gw, a.key, body, { 'idempotency-key': 'the-right-asset' });
    const refused = {
      body: { model: VIDEO_MODEL, content: frameOf(MISSING_ASSET) },
      status: 400,
      code: 'reference_asset_unavailable',
    };
    await refusedThenRun(send, refused, async () => {}, { model: VIDEO_MODEL, content: frameOf(asset.reference) });
  });

  it('a key that may not reference assets (403): the same body runs once the key may', async () => {
    const a = await gw.account({ balance: 10 * PRICE, key: { asset_access: 'none' } });
    const asset = await uploadAsset(gw, await uploaderOf(a.userId), pngOfSize(300));
    const send = (body: unknown) => createVideo(gw, a.key, body, { 'idempotency-key': 'once-allowed' });
    const body = { model: VIDEO_MODEL, content: frameOf(asset.reference) };
    await refusedThenRun(send, { body, status: 403, code: 'asset_access_denied' }, async () => {
      await updateKey(admin(), a.userId, a.keyId, { asset_access: 'all' });
      await waitUntil(async () => (await gw.services.keyCache.lookup(a.key))?.assetAccess === 'all', 5_000, 10);
    });
  });

  it('an external image the gateway could not fetch (400): the same body runs once the image is there', async () => {
    const a = await gw.account({ balance: 10 * IMAGE_PRICE });
    const body = { model: FETCHING_MODEL, prompt: 'like this', image: `${images.url}/not-yet.png` };
    const send = (b: unknown) => postJson(gw, '/v1/images/tasks', a.key, b, { 'idempotency-key': 'once-published' });
    images.refusing = true;
    try {
      await refusedThenRun(send, { body, status: 400, code: 'reference_fetch_failed' }, async () => {
        images.refusing = false;
      });
    } finally {
      images.refusing = false;
    }
    expect(await chargeRows(gw, a.userId)).toHaveLength(1);
  });

  it('private protocol: an asset reference that is not available (400), then the corrected one, same clientRequestId', async () => {
    const a = await gw.account({ balance: 10 * PRICE, key: { kind: 'private', asset_access: 'all' } });
    const asset = await uploadAsset(gw, await uploaderOf(a.userId), pngOfSize(300));
    const call = (url: string) => ({
      apiKey: a.key,
      clientRequestId: 'the-right-asset',
      model: VIDEO_MODEL,
      input: { content: frameOf(url) },
    });
    const refused = { body: call(MISSING_ASSET), status: 400, code: 'reference_asset_unavailable' };
    await refusedThenRun(privateCall, refused, async () => {}, call(asset.reference));
    expect(await taskRows(gw, a.userId)).toHaveLength(1);
  });
});
