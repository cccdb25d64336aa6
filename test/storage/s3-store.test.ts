import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObjectStore, type ObjectStore, type S3StoreConfig } from '../../shared/storage/index.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { objectStoreContract, readAll } from './contract.js';

let s3: TestS3;
let store: ObjectStore;
const stores: ObjectStore[] = [];

function s3Store(overrides: Partial<S3StoreConfig> = {}): ObjectStore {
  const created = createObjectStore({
    driver: 's3',
    endpoint: s3.endpoint,
    region: 'us-east-1',
    bucket: s3.bucket,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
    ...overrides,
  });
  stores.push(created);
  return created;
}

beforeAll(async () => {
  s3 = await startS3();
  store = s3Store();
  await store.ensureReady();
});
afterAll(async () => {
  for (const s of stores) s.close();
  await s3.close();
});

objectStoreContract('s3', () => store);

describe('s3 store', () => {
  it('creates its bucket at start when missing, and a second start changes nothing', async () => {
    const fresh = s3Store({ bucket: 'made-at-start' });
    await fresh.ensureReady();
    await fresh.ensureReady();
    await fresh.put('hello.txt', Buffer.from('hi'), { contentType: 'text/plain' });
    expect((await readAll((await fresh.get('hello.txt'))!.body)).toString()).toBe('hi');
  });

  it('fails loudly with credentials the server does not know', async () => {
    const wrong = s3Store({ accessKeyId: 'NOT-A-KEY' });
    await expect(wrong.put('x.txt', Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow(/Access Key/);
  });

  describe('presigned PUT', () => {
    const body = Buffer.from('a direct upload, byte for byte');

    it('lets a client upload directly with fetch', async () => {
      const signed = await store.presignPut('uploads/direct.txt', {
        contentType: 'text/plain',
        expiresInSeconds: 60,
        contentLength: body.length,
      });
      expect(signed?.url.startsWith(`${s3.endpoint}/${s3.bucket}/uploads/direct.txt?`)).toBe(true);
      const res = await fetch(signed!.url, { method: 'PUT', headers: signed!.headers, body });
      expect(res.status, await res.text()).toBe(200);
      const got = await store.get('uploads/direct.txt');
      expect(got?.contentType).toBe('text/plain');
      expect(await readAll(got!.body)).toEqual(body);
    });

    // s3rver checks the key id and expiry of a V4 signature but not the signature itself, so this
    // asserts what real S3 and MinIO enforce: the type and length are part of what was signed.
    it('signs the content type and length, and carries no checksum of an empty body', async () => {
      const signed = await store.presignPut('uploads/strict.txt', {
        contentType: 'text/plain',
        expiresInSeconds: 60,
        contentLength: body.length,
      });
      const query = new URL(signed!.url).searchParams;
      expect(query.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
      expect(query.get('X-Amz-Expires')).toBe('60');
      expect([...query.keys()].filter((k) => /checksum/i.test(k))).toEqual([]);
      const unsized = await store.presignPut('uploads/any-size.txt', {
        contentType: 'text/plain',
        expiresInSeconds: 60,
      });
      expect(new URL(unsized!.url).searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    });

    it('stops working once expired', async () => {
      const signed = await store.presignPut('uploads/late.txt', { contentType: 'text/plain', expiresInSeconds: 1 });
      await sleep(2_100);
      const res = await fetch(signed!.url, { method: 'PUT', headers: signed!.headers, body });
      expect(res.status).toBe(403);
      expect(await store.head('uploads/late.txt')).toBeUndefined();
    });
  });
});
