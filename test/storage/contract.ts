// One behaviour for every ObjectStore driver: each driver's test file runs this suite against it.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  ContentLengthMismatch,
  InvalidObjectKey,
  RangeNotSatisfiable,
  type ObjectStore,
} from '../../shared/storage/object-store.js';
import { serveObject } from '../../shared/storage/serve-object.js';

export async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const TEN = Buffer.from('0123456789');
let n = 0;
const freshKey = () => `contract/${Date.now().toString(36)}-${++n}/object.bin`;

export function objectStoreContract(name: string, store: () => ObjectStore): void {
  describe(`${name} store contract`, () => {
    it('puts a buffer and gets it back with its type and size', async () => {
      const key = freshKey();
      expect(await store().put(key, TEN, { contentType: 'video/mp4' })).toEqual({ size: 10 });
      const got = await store().get(key);
      expect(got).toMatchObject({ size: 10, length: 10, contentType: 'video/mp4' });
      expect(got?.contentRange).toBeUndefined();
      expect(await readAll(got!.body)).toEqual(TEN);
      expect(await store().head(key)).toEqual({ size: 10, contentType: 'video/mp4' });
    });

    it('streams a Readable in chunks and replaces an existing object', async () => {
      const key = freshKey();
      await store().put(key, TEN, { contentType: 'text/plain' });
      const parts = ['alpha-', 'beta-', 'gamma'].map((s) => Buffer.from(s));
      const { size } = await store().put(key, Readable.from(parts), { contentType: 'image/png', contentLength: 16 });
      expect(size).toBe(16);
      const got = await store().get(key);
      expect(got?.contentType).toBe('image/png');
      expect((await readAll(got!.body)).toString()).toBe('alpha-beta-gamma');
    });

    it('answers undefined for a missing key and deletes idempotently', async () => {
      const key = freshKey();
      expect(await store().get(key)).toBeUndefined();
      expect(await store().head(key)).toBeUndefined();
      await store().delete(key);
      await store().put(key, TEN, { contentType: 'text/plain' });
      await store().delete(key);
      await store().delete(key);
      expect(await store().get(key)).toBeUndefined();
    });

    it('reads byte ranges, clamping the end, and refuses a start past the end', async () => {
      const key = freshKey();
      await store().put(key, TEN, { contentType: 'application/octet-stream' });
      const mid = await store().get(key, { start: 2, end: 5 });
      expect(mid).toMatchObject({ size: 10, length: 4, contentRange: 'bytes 2-5/10' });
      expect((await readAll(mid!.body)).toString()).toBe('2345');
      const tail = await store().get(key, { start: 7 });
      expect((await readAll(tail!.body)).toString()).toBe('789');
      const clamped = await store().get(key, { start: 8, end: 500 });
      expect(clamped).toMatchObject({ length: 2, contentRange: 'bytes 8-9/10' });
      expect((await readAll(clamped!.body)).toString()).toBe('89');
      await expect(store().get(key, { start: 10 })).rejects.toBeInstanceOf(RangeNotSatisfiable);
    });

    it('stores nothing when the body is shorter or longer than declared', async () => {
      const key = freshKey();
      await expect(store().put(key, TEN, { contentType: 'text/plain', contentLength: 11 })).rejects.toBeInstanceOf(
        ContentLengthMismatch,
      );
      await expect(
        store().put(key, Readable.from([TEN, TEN]), { contentType: 'text/plain', contentLength: 15 }),
      ).rejects.toBeInstanceOf(ContentLengthMismatch);
      expect(await store().head(key)).toBeUndefined();
    });

    it('stores nothing when the source stream fails', async () => {
      const key = freshKey();
      async function* failing() {
        yield Buffer.from('partial');
        throw new Error('upstream went away');
      }
      await expect(store().put(key, Readable.from(failing()), { contentType: 'video/mp4' })).rejects.toThrow(
        'upstream went away',
      );
      expect(await store().head(key)).toBeUndefined();
    });

    it('refuses keys that could escape or alias', async () => {
      for (const bad of [
        '',
        '../x',
        '/etc/passwd',
        'a/../../b',
        'a//b',
        'a/./b',
        '.hidden',
        'a\\b',
        'a/b/',
        'nul\0l',
        'sp ace',
      ]) {
        await expect(store().put(bad, TEN, { contentType: 'text/plain' }), bad).rejects.toBeInstanceOf(
          InvalidObjectKey,
        );
        await expect(store().get(bad), bad).rejects.toBeInstanceOf(InvalidObjectKey);
        await expect(store().delete(bad), bad).rejects.toBeInstanceOf(InvalidObjectKey);
      }
    });

    it('serves a signed link: whole, ranged, unsatisfiable and missing', async () => {
      const key = freshKey();
      await store().put(key, TEN, { contentType: 'video/mp4' });
      const claims = { objectKey: key, userId: 'u1', expiresAt: Date.now() + 60_000, filename: 'clip.mp4' };
      const whole = await serveObject(store(), claims, undefined);
      expect(whole.status).toBe(200);
      expect(whole.headers).toMatchObject({
        'content-type': 'video/mp4',
        'content-length': '10',
        'accept-ranges': 'bytes',
      });
      expect(await readAll(whole.body!)).toEqual(TEN);
      const suffix = await serveObject(store(), claims, 'bytes=-3');
      expect(suffix.status).toBe(206);
      expect(suffix.headers).toMatchObject({ 'content-range': 'bytes 7-9/10', 'content-length': '3' });
      expect((await readAll(suffix.body!)).toString()).toBe('789');
      const bad = await serveObject(store(), claims, 'bytes=10-');
      expect(bad).toEqual({ status: 416, headers: { 'content-range': 'bytes */10', 'accept-ranges': 'bytes' } });
      const head = await serveObject(store(), claims, 'bytes=0-1', 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body).toBeUndefined();
      expect(head.headers['content-length']).toBe('10');
      expect((await serveObject(store(), { ...claims, objectKey: freshKey() }, undefined)).status).toBe(404);
      expect((await serveObject(store(), { ...claims, objectKey: freshKey() }, 'bytes=0-1')).status).toBe(404);
    });
  });
}
