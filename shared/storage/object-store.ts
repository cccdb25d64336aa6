import { Transform } from 'node:stream';
import type { Readable } from 'node:stream';

/** Bytes `start`..`end` inclusive, as in an HTTP Range; `end` defaults to the last byte and is clamped to it. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface PutOptions {
  contentType: string;
  /** When given, a body of any other length is refused and nothing is stored. */
  contentLength?: number;
}

export interface ObjectInfo {
  /** Bytes in the whole object. */
  size: number;
  contentType: string;
}

export interface StoredObject extends ObjectInfo {
  /** Read it to the end or destroy it: it holds a file handle or a pooled connection. */
  body: Readable;
  /** Bytes in `body`: the whole object, or the part a range asked for. */
  length: number;
  /** `bytes a-b/size`, set only when a range was asked for. */
  contentRange?: string;
}

export interface PresignPutOptions {
  contentType: string;
  expiresInSeconds: number;
  /**
   * The exact size the client declared. It is signed, so the store refuses a body of any other
   * length; a presigned PUT cannot express "at most N bytes", so check the declared size first.
   */
  contentLength?: number;
}

export interface PresignedPut {
  url: string;
  /** Headers the client must send with the PUT, exactly as given. */
  headers: Record<string, string>;
}

/**
 * Where the gateway keeps files (mirrored results, uploads). Keys are relative, slash-separated
 * paths (`videos/<id>.mp4`) checked by `assertObjectKey`; both drivers behave the same.
 */
export interface ObjectStore {
  readonly driver: 's3' | 'local';
  /** Creates the bucket or directory when missing; call once at start. */
  ensureReady(): Promise<void>;
  /** Streams `body` in without holding it in memory; replaces an existing object atomically. */
  put(key: string, body: Readable | Buffer, options: PutOptions): Promise<{ size: number }>;
  /** Undefined when the object does not exist. Throws `RangeNotSatisfiable` when `range.start >= size`. */
  get(key: string, range?: ByteRange): Promise<StoredObject | undefined>;
  head(key: string): Promise<ObjectInfo | undefined>;
  /** Succeeds whether or not the object exists. */
  delete(key: string): Promise<void>;
  /** A URL a client can PUT the object to directly; undefined when the driver has none (local). */
  presignPut(key: string, options: PresignPutOptions): Promise<PresignedPut | undefined>;
  close(): void;
}

export class InvalidObjectKey extends Error {
  constructor(key: string) {
    super(`invalid object key: ${JSON.stringify(key.slice(0, 100))}`);
    this.name = 'InvalidObjectKey';
  }
}

export class RangeNotSatisfiable extends Error {
  /** `size` when the driver knows it. */
  constructor(readonly size?: number) {
    super(`range not satisfiable${size === undefined ? '' : ` for an object of ${size} bytes`}`);
    this.name = 'RangeNotSatisfiable';
  }
}

export class ContentLengthMismatch extends Error {
  constructor(expected: number, actual: string) {
    super(`body is ${actual} bytes, ${expected} were declared`);
    this.name = 'ContentLengthMismatch';
  }
}

// A whitelist rather than a blacklist: no `..`, no absolute paths, no backslashes, no control
// characters, no empty segments — so a key can never leave the local directory or alias another.
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._=-]*$/;

export function assertObjectKey(key: string): void {
  const ok = key.length > 0 && key.length <= 512 && key.split('/').every((s) => SEGMENT.test(s) && s.length <= 200);
  if (!ok) throw new InvalidObjectKey(key);
}

/**
 * Passes bytes through while counting them; with `expected`, fails the stream as soon as the body
 * is longer, or at its end when shorter — before the store commits anything.
 */
export function countBytes(expected?: number): Transform & { readonly bytes: number } {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (expected !== undefined && bytes > expected)
        done(new ContentLengthMismatch(expected, `more than ${expected}`));
      else done(null, chunk);
    },
    flush(done) {
      done(expected !== undefined && bytes !== expected ? new ContentLengthMismatch(expected, String(bytes)) : null);
    },
  });
  return Object.defineProperty(counter, 'bytes', { get: () => bytes }) as Transform & { readonly bytes: number };
}

/** Resolves a range against the object size: the last byte defaults to and is clamped to the end. */
export function resolveRange(range: ByteRange, size: number): { start: number; end: number } {
  if (!Number.isSafeInteger(range.start) || range.start < 0 || range.start >= size) throw new RangeNotSatisfiable(size);
  const end = Math.min(range.end ?? size - 1, size - 1);
  if (end < range.start) throw new RangeNotSatisfiable(size);
  return { start: range.start, end };
}
