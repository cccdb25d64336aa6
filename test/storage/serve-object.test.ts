import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObjectStore, type ObjectStore } from '../../shared/storage/index.js';
import { contentDisposition, parseRange, serveObject } from '../../shared/storage/serve-object.js';
import { readAll } from './contract.js';

let dir: string;
let store: ObjectStore;
const link = (objectKey: string, extra: object = {}) => ({
  objectKey,
  userId: 'u',
  expiresAt: Date.now() + 60_000,
  ...extra,
});

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'gw-serve-'));
  store = createObjectStore({ driver: 'local', directory: dir });
  await store.ensureReady();
  await store.put('page.html', Buffer.from('<script>alert(1)</script>'), { contentType: 'text/html' });
  await store.put('clip.mp4', Buffer.from('0123456789'), { contentType: 'video/mp4' });
  await store.put('empty.bin', Buffer.alloc(0), { contentType: 'application/octet-stream' });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('parseRange', () => {
  it('reads the three single-range forms', () => {
    expect(parseRange('bytes=0-99')).toEqual({ start: 0, end: 99 });
    expect(parseRange(' bytes=5- ')).toEqual({ start: 5 });
    expect(parseRange('bytes=-20')).toEqual({ suffix: 20 });
  });

  it('ignores what it cannot honour: several ranges, reversed, other units, garbage', () => {
    for (const h of [
      undefined,
      '',
      'bytes=0-1,4-5',
      'bytes=5-2',
      'items=0-1',
      'bytes=-',
      'bytes=a-b',
      'bytes=99999999999999999999-',
    ]) {
      expect(parseRange(h), String(h)).toBeUndefined();
    }
  });
});

describe('serveObject', () => {
  it('answers ranges and ignores ones it cannot parse', async () => {
    const mid = await serveObject(store, link('clip.mp4'), 'bytes=2-4');
    expect(mid.status).toBe(206);
    expect(mid.headers).toMatchObject({ 'content-range': 'bytes 2-4/10', 'content-length': '3' });
    expect((await readAll(mid.body!)).toString()).toBe('234');
    const past = await serveObject(store, link('clip.mp4'), 'bytes=5-500');
    expect(past.headers['content-range']).toBe('bytes 5-9/10');
    expect((await readAll(past.body!)).toString()).toBe('56789');
    const whole = await serveObject(store, link('clip.mp4'), 'bytes=0-1,3-4');
    expect(whole.status).toBe(200);
    await readAll(whole.body!);
  });

  it('answers 416 for a zero suffix and for any range of an empty object', async () => {
    expect((await serveObject(store, link('clip.mp4'), 'bytes=-0')).status).toBe(416);
    const empty = await serveObject(store, link('empty.bin'), 'bytes=0-');
    expect(empty).toMatchObject({ status: 416, headers: { 'content-range': 'bytes */0' } });
    const whole = await serveObject(store, link('empty.bin'), undefined);
    expect(whole.headers['content-length']).toBe('0');
    expect((await readAll(whole.body!)).length).toBe(0);
  });

  it('never renders user content as a page on the gateway origin', async () => {
    const res = await serveObject(store, link('page.html'), undefined);
    await readAll(res.body!);
    expect(res.headers).toMatchObject({
      'content-type': 'text/html',
      'content-disposition': 'attachment',
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
    });
    expect(res.headers['content-security-policy']).toContain('sandbox');
    const media = await serveObject(store, link('clip.mp4', { filename: 'a "clip".mp4' }), undefined);
    await readAll(media.body!);
    expect(media.headers['content-disposition']).toBe(
      `inline; filename="a _clip_.mp4"; filename*=UTF-8''a%20%22clip%22.mp4`,
    );
  });

  it('falls back to octet-stream for a malformed content type', async () => {
    const res = await serveObject(store, link('clip.mp4', { contentType: 'video/mp4\r\nSet-Cookie: x=1' }), undefined);
    await readAll(res.body!);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toBe('attachment');
  });

  it('encodes any filename safely for Content-Disposition', () => {
    expect(contentDisposition('attachment', 'résumé (1).pdf')).toBe(
      `attachment; filename="r_sum_ (1).pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%281%29.pdf`,
    );
    expect(contentDisposition('inline', undefined)).toBe('inline');
  });
});
