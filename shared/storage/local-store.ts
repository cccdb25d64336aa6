import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  assertObjectKey,
  countBytes,
  resolveRange,
  type ByteRange,
  type ObjectInfo,
  type ObjectStore,
  type PutOptions,
  type StoredObject,
} from './object-store.js';

export interface LocalStoreConfig {
  driver: 'local';
  /** Created when missing; holds `objects/` and `tmp/` (same filesystem, so renames are atomic). */
  directory: string;
}

interface Meta {
  key: string;
  contentType: string;
}

/**
 * Objects on local disk: the embedded default when no S3 is configured. A file's name is the
 * sha256 of its key, so no key can name a path outside the directory, and `a` and `a/b` can both
 * exist as they can in S3. Metadata sits beside the data in `<hash>.json`.
 */
export function createLocalStore(config: LocalStoreConfig): ObjectStore {
  const root = path.resolve(config.directory);
  const tmpDir = path.join(root, 'tmp');

  function locate(key: string): { data: string; meta: string } {
    assertObjectKey(key);
    const hash = createHash('sha256').update(key).digest('hex');
    const base = path.join(root, 'objects', hash.slice(0, 2), hash);
    return { data: base, meta: `${base}.json` };
  }

  async function readMeta(file: string): Promise<Meta | undefined> {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as Meta;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  return {
    driver: 'local',

    async ensureReady() {
      await mkdir(path.join(root, 'objects'), { recursive: true });
      await mkdir(tmpDir, { recursive: true });
    },

    async put(key: string, body: Readable | Buffer, options: PutOptions) {
      const { data, meta } = locate(key);
      const tmp = path.join(tmpDir, `${randomBytes(12).toString('hex')}.part`);
      const counter = countBytes(options.contentLength);
      await mkdir(path.dirname(data), { recursive: true });
      // Opened before the copy starts: a write stream opens its file asynchronously, so a copy that
      // failed at once could have its temp file removed before the stream created it (left behind).
      const file = await open(tmp, 'wx');
      try {
        await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, counter, file.createWriteStream());
        await writeFile(`${tmp}.json`, JSON.stringify({ key, contentType: options.contentType } satisfies Meta));
        // Metadata first: a reader racing a replace may see the new type with the old bytes for an
        // instant, never a data file without its metadata.
        await rename(`${tmp}.json`, meta);
        await rename(tmp, data);
      } finally {
        // The stream closes its handle when it ends or fails; closing again is a no-op then.
        await file.close().catch(() => {});
        await rm(tmp, { force: true });
        await rm(`${tmp}.json`, { force: true });
      }
      return { size: counter.bytes };
    },

    async get(key: string, range?: ByteRange): Promise<StoredObject | undefined> {
      const { data, meta } = locate(key);
      // The open handle pins this version of the file even if a put renames a new one over it.
      const handle = await open(data, 'r').catch((err: unknown) => (isMissing(err) ? undefined : Promise.reject(err)));
      if (!handle) return undefined;
      try {
        const [{ size }, m] = await Promise.all([handle.stat(), readMeta(meta)]);
        const contentType = m?.contentType ?? 'application/octet-stream';
        if (!range) return { body: handle.createReadStream(), size, length: size, contentType };
        const { start, end } = resolveRange(range, size);
        const body = handle.createReadStream({ start, end });
        return { body, size, length: end - start + 1, contentType, contentRange: `bytes ${start}-${end}/${size}` };
      } catch (err) {
        await handle.close();
        throw err;
      }
    },

    async head(key: string): Promise<ObjectInfo | undefined> {
      const { data, meta } = locate(key);
      const info = await stat(data).catch((err: unknown) => (isMissing(err) ? undefined : Promise.reject(err)));
      if (!info) return undefined;
      return { size: info.size, contentType: (await readMeta(meta))?.contentType ?? 'application/octet-stream' };
    },

    async delete(key: string) {
      const { data, meta } = locate(key);
      await rm(data, { force: true });
      await rm(meta, { force: true });
    },

    // Local files have no URL of their own; uploads go through the gateway.
    async presignPut() {
      return undefined;
    },

    close() {},
  };
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
