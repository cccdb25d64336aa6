import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObjectStore, type ObjectStore } from '../../shared/storage/index.js';
import { InvalidObjectKey } from '../../shared/storage/object-store.js';
import { objectStoreContract, readAll } from './contract.js';

let dir: string;
let store: ObjectStore;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'gw-local-store-'));
  store = createObjectStore({ driver: 'local', directory: path.join(dir, 'objects-root') });
  await store.ensureReady();
});
afterAll(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

objectStoreContract('local', () => store);

describe('local store', () => {
  it('never touches a path outside its directory', async () => {
    const outside = path.join(dir, 'escaped');
    for (const key of [outside, `../${path.basename(dir)}/escaped`, '../../../../tmp/escaped']) {
      await expect(store.put(key, Buffer.from('x'), { contentType: 'text/plain' })).rejects.toBeInstanceOf(
        InvalidObjectKey,
      );
    }
    expect(await readdir(dir)).toEqual(['objects-root']);
  });

  it('leaves no temp files behind, after success or failure', async () => {
    await store.put('videos/a.mp4', Buffer.from('abc'), { contentType: 'video/mp4' });
    await expect(
      store.put('videos/b.mp4', Buffer.from('abc'), { contentType: 'video/mp4', contentLength: 4 }),
    ).rejects.toThrow();
    expect(await readdir(path.join(dir, 'objects-root', 'tmp'))).toEqual([]);
  });

  it('keeps `a` and `a/b` apart, as S3 does', async () => {
    await store.put('nested', Buffer.from('parent'), { contentType: 'text/plain' });
    await store.put('nested/child', Buffer.from('child'), { contentType: 'text/plain' });
    expect((await readAll((await store.get('nested'))!.body)).toString()).toBe('parent');
    expect((await readAll((await store.get('nested/child'))!.body)).toString()).toBe('child');
  });

  it('a reader keeps the version it opened while a put replaces it', async () => {
    await store.put('replaced', Buffer.from('old-bytes'), { contentType: 'text/plain' });
    const open = await store.get('replaced');
    await store.put('replaced', Buffer.from('new'), { contentType: 'text/plain' });
    expect((await readAll(open!.body)).toString()).toBe('old-bytes');
  });

  it('has no direct upload URL', async () => {
    expect(await store.presignPut('x', { contentType: 'video/mp4', expiresInSeconds: 60 })).toBeUndefined();
  });
});
