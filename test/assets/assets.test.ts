import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyCreate } from '../../shared/keys/key-settings.js';
import { sweepExpiredUploads } from '../../shared/assets/sweep.js';
import { createKey } from '../../shared/keys/manage-keys.js';
import { api, expectFailure, signIn } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { controlClock } from '../support/limits.js';
import { IMAGE_MODEL, startTaskGateway, taskRow, VIDEO_MODEL, type TaskGateway } from '../support/task-gateway.js';

type Json = Record<string, any>;
const clock = controlClock();
let local: TestGateway;
let s3: TaskGateway;
let png: Buffer;
let jpeg: Buffer;

beforeAll(async () => {
  [local, s3] = await Promise.all([startTestGateway({ clock }), startTaskGateway()]);
  png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  jpeg = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#cc6633' } })
    .jpeg()
    .toBuffer();
});
afterAll(async () => {
  await Promise.all([local?.close(), s3?.close()]);
});

const call = async (gw: TestGateway, key: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: (text ? JSON.parse(text) : undefined) as Json };
};

async function upload(gw: TestGateway, key: string, bytes: Buffer, contentType = 'image/png', declared = bytes.length) {
  const reserved = await call(gw, key, 'POST', '/v1/assets', {
    filename: 'picture.png',
    content_type: contentType,
    size_bytes: declared,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  });
  expect(reserved.status, JSON.stringify(reserved.json)).toBe(200);
  // The PUT carries only the headers the reservation names: never the API key.
  const put = await fetch(reserved.json.upload_url, { method: 'PUT', headers: reserved.json.headers, body: bytes });
  return {
    reserved: reserved.json,
    put,
    complete: () => call(gw, key, 'POST', `/v1/assets/uploads/${reserved.json.upload_id}/complete`),
  };
}

/** An image body whose header claims width × height (a tiny file that would decode to gigabytes). */
function pngClaiming(base: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(base);
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  out.writeUInt32BE(crc32(out.subarray(12, 29)), 29);
  return out;
}

describe('the upload sequence', () => {
  for (const [name, gw] of [
    ['local driver', () => local],
    ['S3-compatible storage', () => s3],
  ] as const) {
    it(`${name}: reserve, PUT without the key, complete (idempotent), read, download, delete`, async () => {
      const { key } = await gw().account({ balance: 10_000_000 });
      const { reserved, put, complete } = await upload(gw(), key, png);
      expect(reserved).toMatchObject({
        upload_id: expect.stringMatching(/^up_/),
        method: 'PUT',
        expires_at: expect.any(String),
      });
      expect(put.status).toBe(200);
      const first = await complete();
      expect(first.status, JSON.stringify(first.json)).toBe(200);
      expect(first.json).toMatchObject({
        id: expect.stringMatching(/^asset_/),
        reference: `asset://${first.json.id}`,
        content_type: 'image/png',
        size_bytes: png.length,
        width: 64,
        height: 48,
      });
      expect((await complete()).json).toEqual(first.json);
      const id = first.json.id as string;
      expect((await call(gw(), key, 'GET', `/v1/assets/${id}`)).json).toEqual(first.json);
      expect((await call(gw(), key, 'GET', '/v1/assets')).json.data.map((a: Json) => a.id)).toContain(id);
      const link = await call(gw(), key, 'GET', `/v1/assets/${id}/content`);
      const downloaded = Buffer.from(await (await fetch(link.json.url)).arrayBuffer());
      expect(downloaded.equals(png)).toBe(true);
      expect((await call(gw(), key, 'DELETE', `/v1/assets/${id}`)).status).toBe(204);
      expect((await call(gw(), key, 'GET', `/v1/assets/${id}`)).status).toBe(404);
    });
  }
});

describe('verification', () => {
  it('refuses a huge claimed image fast, wrong magic bytes, a truncated file, a size mismatch, and removes the object', async () => {
    const { key } = await local.account({ balance: 10_000_000 });
    const huge = await upload(local, key, pngClaiming(png, 60_000, 60_000));
    const started = performance.now();
    const refusedHuge = await huge.complete();
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(refusedHuge.json.error).toMatchObject({ code: 'invalid_image' });
    expect((await (await upload(local, key, jpeg, 'image/png')).complete()).json.error.code).toBe(
      'unsupported_media_type',
    );
    const truncated = await upload(local, key, png.subarray(0, png.length - 30));
    expect((await truncated.complete()).json.error.code).toBe('invalid_image');
    // Completing again after a refusal: the object is gone, nothing was kept.
    expect((await truncated.complete()).json.error.code).toBe('upload_incomplete');
    const tooBig = await call(local, key, 'POST', '/v1/assets', {
      filename: 'x.png',
      content_type: 'image/png',
      size_bytes: 101 * 1024 * 1024,
    });
    expect(tooBig.status).toBe(413);
    const svg = await call(local, key, 'POST', '/v1/assets', {
      filename: 'x.svg',
      content_type: 'image/svg+xml',
      size_bytes: 10,
    });
    expect(svg.json.error).toMatchObject({ code: 'invalid_request', param: 'content_type' });
  });

  it('the storage URL refuses another length, another type, a forged token and an expired one', async () => {
    const { key } = await local.account({ balance: 10_000_000 });
    const reserved = (
      await call(local, key, 'POST', '/v1/assets', {
        filename: 'p.png',
        content_type: 'image/png',
        size_bytes: png.length,
      })
    ).json;
    const url = reserved.upload_url as string;
    expect(
      (await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png.subarray(1) })).status,
    ).toBe(400);
    expect((await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: png })).status).toBe(
      400,
    );
    const dot = url.lastIndexOf('.');
    const forged = `${url.slice(0, dot + 1)}${url[dot + 1] === 'A' ? 'B' : 'A'}${url.slice(dot + 2)}`;
    expect((await fetch(forged, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png })).status).toBe(
      404,
    );
    clock.advance(16 * 60_000);
    expect((await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png })).status).toBe(404);
  });
});

describe('console uploads', () => {
  it('the same sequence in the console envelope; an `own` key sees console uploads, not another key’s', async () => {
    const acct = await local.account({ balance: 10_000_000 });
    const { token } = await signIn(local, acct.email);
    const reserved = await api(local, 'POST', '/assets', {
      token,
      body: { filename: 'console.png', content_type: 'image/png', size_bytes: png.length },
    });
    expect(reserved.status, JSON.stringify(reserved.json)).toBe(200);
    expect(
      (await fetch(reserved.json.data.upload_url, { method: 'PUT', headers: reserved.json.data.headers, body: png }))
        .status,
    ).toBe(200);
    const done = await api(local, 'POST', `/assets/uploads/${reserved.json.data.upload_id}/complete`, { token });
    expect(done.json.data).toMatchObject({ reference: expect.stringMatching(/^asset:\/\/asset_/), width: 64 });
    expectFailure(
      await api(local, 'POST', '/assets', {
        token,
        body: { filename: 'x.png', content_type: 'image/png', size_bytes: 1, extra: 1 },
      }),
      400,
      'invalid_json',
    );
    // The account's own key (asset_access own) sees the console upload.
    expect((await call(local, acct.key, 'GET', `/v1/assets/${done.json.data.id}`)).status).toBe(200);
    // The console's list: its paginated envelope, like every console list.
    const listed = (await api(local, 'GET', '/assets', { token })).json;
    expect(listed).toMatchObject({ total: 1, page: 1, page_size: 20 });
    expect(listed.list.map((a: Json) => a.id)).toEqual([done.json.data.id]);
    expect((await api(local, 'GET', '/assets?page=2&page_size=1', { token })).json).toMatchObject({
      list: [],
      total: 1,
    });
  });
});

describe('images forwarded to a model', () => {
  it('an 18 MiB original is forwarded as a derivative of at most 10 MiB, made once; the original stays unchanged', async () => {
    const big = await sharp({
      create: {
        width: 2_500,
        height: 2_500,
        channels: 3 as const,
        background: '#000',
        noise: { type: 'gaussian' as const, mean: 128, sigma: 60 },
      },
    })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(big.length).toBeGreaterThan(17 * 1024 * 1024);
    const { key } = await s3.account({ balance: 10_000_000 });
    const asset = (await (await upload(s3, key, big)).complete()).json;
    expect(asset.size_bytes).toBe(big.length);
    const forwardedUrl = async () => {
      const video = await call(s3, key, 'POST', '/v1/videos', {
        model: VIDEO_MODEL,
        content: [
          { type: 'text', text: 'x' },
          { type: 'image_url', role: 'first_frame', image_url: { url: asset.reference } },
        ],
      });
      expect(video.status, JSON.stringify(video.json)).toBe(200);
      return ((await taskRow(s3, video.json.id))!.request as Json).content[1].image_url.url as string;
    };
    const sent = Buffer.from(await (await fetch(await forwardedUrl())).arrayBuffer());
    expect(sent.length).toBeLessThanOrEqual(10 * 1024 * 1024);
    expect([...sent.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const again = Buffer.from(await (await fetch(await forwardedUrl())).arrayBuffer());
    expect(again.equals(sent)).toBe(true);
    const original = await call(s3, key, 'GET', `/v1/assets/${asset.id}/content`);
    expect(Buffer.from(await (await fetch(original.json.url)).arrayBuffer()).equals(big)).toBe(true);
  }, 60_000);
});

describe('housekeeping', () => {
  it('sweeps reservations never confirmed, with their uploaded object, an hour past expiry', async () => {
    const { key, userId } = await local.account({ balance: 10_000_000 });
    const { reserved } = await upload(local, key, png);
    const object = `assets/${userId}/${reserved.upload_id}`;
    expect(await local.services.storage.head(object)).toBeDefined();
    expect(await sweepExpiredUploads(local.services.db, local.services.storage, clock.now())).toBe(0);
    expect(
      await sweepExpiredUploads(local.services.db, local.services.storage, clock.now() + 76 * 60_000),
    ).toBeGreaterThanOrEqual(1);
    expect(await local.services.storage.head(object)).toBeUndefined();
    expect((await call(local, key, 'POST', `/v1/assets/uploads/${reserved.upload_id}/complete`)).status).toBe(404);
  });
});

describe('asset scope', () => {
  it('own / all / none × this key, another key, the console, another account, missing × list, read, download, delete, video and image-task references', async () => {
    const acct = await s3.account({ balance: 10_000_000 });
    const admin = {
      db: s3.services.db,
      redis: s3.services.redis,
      channel: s3.services.redisKeys.keyInvalidation,
      catalog: s3.services.catalog,
    };
    const keyWith = async (settings: KeyCreate) => (await createKey(admin, acct.userId, settings)).key;
    const uploader = await keyWith({ asset_access: 'own' });
    const { token } = await signIn(s3, acct.email);
    const consoleUpload = async () => {
      const r = (
        await api(s3, 'POST', '/assets', {
          token,
          body: { filename: 'c.png', content_type: 'image/png', size_bytes: png.length },
        })
      ).json.data;
      await fetch(r.upload_url, { method: 'PUT', headers: r.headers, body: png });
      return (await api(s3, 'POST', `/assets/uploads/${r.upload_id}/complete`, { token })).json.data.id as string;
    };
    const stranger = await s3.account({ balance: 10_000_000 });
    const ids = {
      mine: (await (await upload(s3, uploader, png)).complete()).json.id as string,
      console: await consoleUpload(),
      theirs: (await (await upload(s3, stranger.key, png)).complete()).json.id as string,
    };
    const missing = 'asset_AAAAAAAAAAAAAAAAAAAA';
    const keys = {
      uploader,
      own: await keyWith({ asset_access: 'own' }),
      all: await keyWith({ asset_access: 'all' }),
      none: await keyWith({ asset_access: 'none' }),
    };
    const visible: Record<string, Record<keyof typeof ids, boolean>> = {
      uploader: { mine: true, console: true, theirs: false },
      own: { mine: false, console: true, theirs: false },
      all: { mine: true, console: true, theirs: false },
      none: { mine: false, console: false, theirs: false },
    };
    // Equal apart from the request id and the id quoted in the message.
    const strip = (r: { status: number; json: Json }) => ({
      status: r.status,
      error: { ...r.json.error, message: r.json.error?.message?.replace(/asset_\w+/, 'X') },
    });
    const video = (key: string, id: string) =>
      call(s3, key, 'POST', '/v1/videos', {
        model: VIDEO_MODEL,
        content: [
          { type: 'text', text: 'x' },
          { type: 'image_url', role: 'first_frame', image_url: { url: `asset://${id}` } },
        ],
      });
    const imageTask = (key: string, id: string) =>
      call(s3, key, 'POST', '/v1/images/tasks', { model: IMAGE_MODEL, prompt: 'x', image: `asset://${id}` });

    for (const [who, key] of Object.entries(keys)) {
      const listed = (await call(s3, key, 'GET', '/v1/assets?limit=100')).json.data.map((a: Json) => a.id);
      const absent = {
        read: strip(await call(s3, key, 'GET', `/v1/assets/${missing}`)),
        download: strip(await call(s3, key, 'GET', `/v1/assets/${missing}/content`)),
        video: strip(await video(key, missing)),
        image: strip(await imageTask(key, missing)),
      };
      for (const [what, id] of Object.entries(ids) as Array<[keyof typeof ids, string]>) {
        const label = `${who} × ${what}`;
        const sees = visible[who]![what];
        expect(listed.includes(id), label).toBe(sees);
        const read = await call(s3, key, 'GET', `/v1/assets/${id}`);
        const download = await call(s3, key, 'GET', `/v1/assets/${id}/content`);
        const v = await video(key, id);
        const img = await imageTask(key, id);
        if (who === 'none') {
          for (const r of [v, img]) expect(r.json.error, label).toMatchObject({ code: 'asset_access_denied' });
        }
        if (sees) {
          expect([read.status, download.status, v.status, img.status], label).toEqual([200, 200, 200, 200]);
          for (const r of [v, img])
            expect(JSON.stringify((await taskRow(s3, r.json.id))!.request), label).not.toContain('asset://');
        } else {
          expect(strip(read), label).toEqual(absent.read);
          expect(strip(download), label).toEqual(absent.download);
          expect(strip(v), label).toEqual(absent.video);
          expect(strip(img), label).toEqual(absent.image);
          // Out of scope cannot be deleted either, and answers like missing.
          expect(strip(await call(s3, key, 'DELETE', `/v1/assets/${id}`)), label).toEqual(
            strip(await call(s3, key, 'DELETE', `/v1/assets/${missing}`)),
          );
        }
      }
    }
    // Nothing out of scope was deleted: each asset is still there for whoever may see it.
    expect((await call(s3, keys.all, 'GET', `/v1/assets/${ids.mine}`)).status).toBe(200);
    expect((await call(s3, keys.own, 'GET', `/v1/assets/${ids.console}`)).status).toBe(200);
    expect((await call(s3, stranger.key, 'GET', `/v1/assets/${ids.theirs}`)).status).toBe(200);
    // And a key in scope deletes: references then answer like missing.
    expect((await call(s3, keys.uploader, 'DELETE', `/v1/assets/${ids.mine}`)).status).toBe(204);
    expect(strip(await video(keys.uploader, ids.mine))).toEqual(strip(await video(keys.uploader, missing)));
  }, 60_000);
});
