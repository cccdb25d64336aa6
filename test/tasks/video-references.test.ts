// A video model's reference images within its catalog `reference_limits` (count, max_bytes, types):
// inline ones (data URIs) are checked when the task is accepted; https ones the gateway re-hosts
// (`accepts_urls: false`) are held to the same limits when fetched, not only to
// IMAGE_FETCH_MAX_BYTES; https ones passed through unfetched are counted, and their bytes are the
// provider's to check (docs/reference/tasks.md). A refusal is a 400 naming the part, charged nothing.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_HOST_CA, startImageHost, type ImageHost } from '../support/image-host.js';
import { pngOfSize } from '../support/images.js';
import { errorOf, postJson, type JsonReply } from '../support/limits.js';
import { usersBalance } from '../support/money.js';
import { spawnApi, writeCatalogFile, type ApiProcess } from '../support/processes.js';
import {
  startTaskGateway,
  taskCatalog,
  taskRows,
  VIDEO_UPSTREAM,
  workerEnv,
  type TaskGateway,
} from '../support/task-gateway.js';

const MAX_BYTES = 4096;
const LIMITS = { max_count: 2, max_bytes: MAX_BYTES, types: ['image/png'] };
const PASSED = 'vid-refs';
const FETCHED = 'vid-refs-fetched';
const FUNDS = 1_000_000;

function catalog(simUrl: string) {
  const base = taskCatalog(simUrl);
  const model = (id: string, acceptsUrls: boolean) => ({
    id,
    endpoints: ['videos'],
    routes: [{ provider: 'tasks-sim', upstream_model: VIDEO_UPSTREAM }],
    durations: [5],
    resolutions: ['720p'],
    pricing: { per_second: 10_000 },
    reference_limits: LIMITS,
    accepts_urls: acceptsUrls,
  });
  return { ...base, models: [...base.models, model(PASSED, true), model(FETCHED, false)] };
}

const JPEG = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
  .jpeg()
  .toBuffer();
const WEBP = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
  .webp()
  .toBuffer();
const dataUri = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;
const body = (model: string, ...urls: string[]) => ({
  model,
  content: [
    { type: 'text', text: 'from these frames' },
    ...urls.map((url) => ({ type: 'image_url', role: 'reference_image', image_url: { url } })),
  ],
});

let gw: TaskGateway;
let host: ImageHost;
let api: ApiProcess;
let catalogFile: { file: string; remove(): Promise<void> };
beforeAll(async () => {
  host = await startImageHost({ tls: true });
  gw = await startTaskGateway({ catalog, workers: false });
  // The fetching API runs as its own process: it trusts the image host's certificate as a public one.
  catalogFile = await writeCatalogFile(gw.sim.url, catalog);
  api = await spawnApi({
    ...workerEnv(gw, catalogFile.file),
    IMAGE_FETCH_TRUSTED_ADDRESSES: '127.0.0.1',
    NODE_EXTRA_CA_CERTS: IMAGE_HOST_CA,
  });
});
afterAll(async () => {
  await api?.stop();
  await gw?.close();
  await host?.close();
  await catalogFile?.remove();
});

/** Refused with 400 naming the reference, nothing stored, charged or set aside. */
async function expectRefused(
  res: JsonReply,
  who: { userId: string },
  param: string,
  code: string,
  message: RegExp,
): Promise<void> {
  expect(res.status, JSON.stringify(res.json)).toBe(400);
  expect(errorOf(res)).toMatchObject({ code, param });
  expect(errorOf(res).message).toMatch(message);
  expect(await taskRows(gw, who.userId)).toHaveLength(0);
  expect(await usersBalance(gw.services.db, who.userId)).toBe(FUNDS);
  expect(await gw.services.redis.hlen(gw.services.redisKeys.reservations(who.userId))).toBe(0);
}

/** The references of the task's stored request: what its submit sends the upstream. */
async function storedReferences(userId: string): Promise<string[]> {
  const [row] = await taskRows(gw, userId);
  const content = row!.request.content as { type: string; image_url?: { url: string } }[];
  return content.flatMap((p) => (p.image_url ? [p.image_url.url] : []));
}

describe('inline references (data URIs)', () => {
  it('an image of exactly max_bytes is accepted; one byte more is refused', async () => {
    const a = await gw.account({ balance: FUNDS });
    const over = await postJson(gw, '/v1/videos', a.key, body(PASSED, dataUri('image/png', pngOfSize(MAX_BYTES + 1))));
    await expectRefused(over, a, 'content[1].image_url.url', 'invalid_request', /4097 bytes; at most 4096/);
    const fits = await postJson(gw, '/v1/videos', a.key, body(PASSED, dataUri('image/png', pngOfSize(MAX_BYTES))));
    expect(fits.status, JSON.stringify(fits.json)).toBe(200);
  });

  it('a type the model does not take (read from the bytes) is refused, whichever part it is', async () => {
    const a = await gw.account({ balance: FUNDS });
    const png = dataUri('image/png', pngOfSize(300));
    const jpeg = await postJson(gw, '/v1/videos', a.key, body(PASSED, png, dataUri('image/jpeg', JPEG)));
    await expectRefused(
      jpeg,
      a,
      'content[2].image_url.url',
      'unsupported_media_type',
      /image\/jpeg; this model takes image\/png/,
    );
    const webp = await postJson(gw, '/v1/videos', a.key, body(PASSED, dataUri('image/webp', WEBP)));
    await expectRefused(webp, a, 'content[1].image_url.url', 'unsupported_media_type', /image\/webp/);
  });
});

describe('https references the gateway re-hosts (accepts_urls: false)', () => {
  it('are held to max_bytes when fetched, far below IMAGE_FETCH_MAX_BYTES', async () => {
    const a = await gw.account({ balance: FUNDS });
    host.serve(pngOfSize(MAX_BYTES + 1));
    const res = await postJson(api.url, '/v1/videos', a.key, body(FETCHED, `${host.url}/big.png`));
    await expectRefused(res, a, 'content[1].image_url.url', 'reference_fetch_failed', /more than 4096 bytes/);
  });

  it('are held to the types, read from the bytes whatever the host calls them', async () => {
    const a = await gw.account({ balance: FUNDS });
    host.serve(JPEG, 'image/png');
    const res = await postJson(api.url, '/v1/videos', a.key, body(FETCHED, `${host.url}/photo.png`));
    await expectRefused(
      res,
      a,
      'content[1].image_url.url',
      'unsupported_media_type',
      /image\/jpeg; this model takes image\/png/,
    );
  });

  it('within the limits: fetched once and sent upstream as a link of the gateway', async () => {
    const a = await gw.account({ balance: FUNDS });
    host.serve(pngOfSize(MAX_BYTES));
    const before = host.served;
    const url = `${host.url}/frame.png`;
    const res = await postJson(api.url, '/v1/videos', a.key, body(FETCHED, url));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(host.served).toBe(before + 1);
    const [sent] = await storedReferences(a.userId);
    expect(sent).not.toBe(url);
    expect(sent).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/files\//);
  });
});

describe('https references passed through unfetched (accepts_urls: true)', () => {
  it('count against max_count; their bytes and type are left to the provider, which fetches them', async () => {
    const a = await gw.account({ balance: FUNDS });
    const urls = [1, 2, 3].map((i) => `${host.url}/ref-${i}.jpg`);
    const many = await postJson(gw, '/v1/videos', a.key, body(PASSED, ...urls));
    await expectRefused(many, a, 'content[3].image_url.url', 'invalid_request', /at most 2 reference images/);
    // A JPEG far over max_bytes: the gateway never reads it, so nothing refuses it here.
    host.serve(Buffer.concat([JPEG, Buffer.alloc(10 * MAX_BYTES)]), 'image/jpeg');
    const before = host.served;
    const res = await postJson(gw, '/v1/videos', a.key, body(PASSED, urls[0]!, urls[1]!));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(host.served).toBe(before);
    expect(await storedReferences(a.userId)).toEqual([urls[0], urls[1]]);
  });
});
