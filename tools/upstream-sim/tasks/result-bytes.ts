// Deterministic result files of any size, generated on demand: byte i of a task's file is a pure
// function of (task id, kind, i), so a 200 MiB video is never held in memory and any range can be
// produced directly. Tests use resultBytes() to check what they downloaded.
import { Readable } from 'node:stream';
import type { TaskKind } from './task-record.js';

/** Prime, so the repeat never lines up with chunk or part sizes and misplaced bytes show. */
const PATTERN_SIZE = 65_521;
const CHUNK_BYTES = 64 * 1024;

const PATTERN = ((): Buffer => {
  const pattern = Buffer.allocUnsafe(PATTERN_SIZE);
  let x = 0x9e3779b9;
  for (let i = 0; i < PATTERN_SIZE; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    pattern[i] = x & 0xff;
  }
  return pattern;
})();

/** Enough of each format's signature that sniffers recognise the file: an MP4 ftyp box, the PNG magic. */
const HEADERS: Record<TaskKind, Buffer> = {
  video: Buffer.from('000000186674797069736f6d0000020069736f6d6d703432', 'hex'),
  image: Buffer.from('89504e470d0a1a0a', 'hex'),
};

export const RESULT_CONTENT_TYPES: Record<TaskKind, string> = { video: 'video/mp4', image: 'image/png' };

/** FNV-1a of the file name: where in the pattern this file's bytes start. */
function shiftOf(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return hash % PATTERN_SIZE;
}

/**
 * `length` bytes of the result file starting at `start`. `name` identifies the file: the task id for
 * a video, `<task id>.<index>` for one image of an image task.
 */
export function resultBytes(name: string, kind: TaskKind, start: number, length: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  const header = HEADERS[kind];
  let written = 0;
  if (start < header.length) written = header.copy(out, 0, start, Math.min(header.length, start + length));
  const shift = shiftOf(name);
  while (written < length) {
    const from = (start + written + shift) % PATTERN_SIZE;
    written += PATTERN.copy(out, written, from, Math.min(PATTERN_SIZE, from + length - written));
  }
  return out;
}

/**
 * Bytes [start, end] (inclusive) as a stream made when the reader wants it. Past the header each
 * chunk is a view into the shared pattern, not a copy, so streaming allocates almost nothing.
 */
export function resultStream(name: string, kind: TaskKind, start: number, end: number): Readable {
  const headerLength = HEADERS[kind].length;
  const shift = shiftOf(name);
  let at = start;
  return new Readable({
    highWaterMark: CHUNK_BYTES,
    read() {
      if (at > end) return void this.push(null);
      if (at < headerLength) {
        const length = Math.min(headerLength, end + 1) - at;
        this.push(resultBytes(name, kind, at, length));
        at += length;
        return;
      }
      const from = (at + shift) % PATTERN_SIZE;
      const length = Math.min(PATTERN_SIZE - from, end + 1 - at);
      this.push(PATTERN.subarray(from, from + length));
      at += length;
    },
  });
}
