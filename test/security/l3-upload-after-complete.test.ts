// L3: an upload URL stayed usable after `complete`, so the bytes of a verified asset could be
// replaced under its recorded sha256. The gateway's own upload URL now refuses a PUT once the upload
// is completed, and `complete` stores the verified bytes under a key of their own, which no upload
// URL names (an S3 presigned PUT cannot be revoked); whatever lands on the upload's key later goes
// with the sweep.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepExpiredUploads } from '../../shared/assets/sweep.js';
import type { Json } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startTaskGateway, type TaskGateway } from '../support/task-gateway.js';

let local: TestGateway;
let s3: TaskGateway;
let png: Buffer;

beforeAll(async () => {
  [local, s3] = await Promise.all([startTestGateway(), startTaskGateway({ workers: false })]);
  png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
});
afterAll(async () => {
  await Promise.all([local?.close(), s3?.close()]);
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function call(gw: TestGateway, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : undefined) as Json };
}

async function download(gw: TestGateway, key: string, assetId: string): Promise<Buffer> {
  const link = await call(gw, key, 'GET', `/v1/assets/${assetId}/content`);
  return Buffer.from(await (await fetch(link.json.url)).arrayBuffer());
}

describe('an upload URL after complete', () => {
  for (const [name, gw, refusesPut] of [
    ['local driver', () => local, true],
    ['S3-compatible storage', () => s3, false],
  ] as const) {
    it(`${name}: the verified bytes cannot be replaced under the recorded sha256`, async () => {
      const { key, userId } = await gw().account();
      const reserved = await call(gw(), key, 'POST', '/v1/assets', {
        filename: 'a.png',
        content_type: 'image/png',
        size_bytes: png.length,
        sha256: sha256(png),
      });
      const put = (bytes: Buffer) =>
        fetch(reserved.json.upload_url, { method: 'PUT', headers: reserved.json.headers, body: bytes });
      expect((await put(png)).status).toBe(200);
      const complete = () => call(gw(), key, 'POST', `/v1/assets/uploads/${reserved.json.upload_id}/complete`);
      const asset = (await complete()).json;
      expect(asset.sha256).toBe(sha256(png));

      // The same length and type, other bytes: what the URL was signed for.
      const forged = Buffer.alloc(png.length, 0x41);
      const again = await put(forged);
      if (refusesPut) {
        expect(again.status).toBe(409);
        expect(((await again.json()) as Json).error.code).toBe('conflict');
      }
      const served = await download(gw(), key, asset.id);
      expect(sha256(served)).toBe(asset.sha256);
      expect(served.equals(png)).toBe(true);
      expect((await complete()).json).toEqual(asset);

      // An hour past the URL's expiry the reservation goes, with anything written to its key since;
      // the asset stays, and `complete` still answers it.
      const uploadKey = `assets/${userId}/${reserved.json.upload_id}`;
      const later = Date.parse(reserved.json.expires_at) + 61 * 60_000;
      await sweepExpiredUploads(gw().services.db, gw().services.storage, later);
      expect(await gw().services.storage.head(uploadKey)).toBeUndefined();
      expect((await download(gw(), key, asset.id)).equals(png)).toBe(true);
      expect((await complete()).json).toEqual(asset);
    });
  }

  it('an asset completed before assets had keys of their own (under its upload key) survives the sweep', async () => {
    const { key, userId } = await local.account();
    const reserved = await call(local, key, 'POST', '/v1/assets', {
      filename: 'a.png',
      content_type: 'image/png',
      size_bytes: png.length,
    });
    await fetch(reserved.json.upload_url, { method: 'PUT', headers: reserved.json.headers, body: png });
    const asset = (await call(local, key, 'POST', `/v1/assets/uploads/${reserved.json.upload_id}/complete`)).json;
    const uploadKey = `assets/${userId}/${reserved.json.upload_id}`;
    await local.services.storage.put(uploadKey, png, { contentType: 'image/png' });
    await local.services.db.updateTable('assets').set({ object_key: uploadKey }).where('id', '=', asset.id).execute();
    await sweepExpiredUploads(
      local.services.db,
      local.services.storage,
      Date.parse(reserved.json.expires_at) + 61 * 60_000,
    );
    expect((await download(local, key, asset.id)).equals(png)).toBe(true);
  });
});
