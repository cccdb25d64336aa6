import { Transform } from 'node:stream';
import { GatewayError } from '../errors.js';

const NEWLINE = 0x0a;

/**
 * Passes a JSONL upload through while counting its bytes and lines, failing the stream as soon as
 * either passes its limit, before the store commits anything. A last line without a newline counts.
 */
export function countLines(maxBytes: number, maxLines: number): Transform & { bytes: number; lines(): number } {
  let bytes = 0;
  let newlines = 0;
  let last = NEWLINE;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        done(new GatewayError('body_too_large', 413, `the file exceeds ${maxBytes} bytes`, { param: 'file' }));
        return;
      }
      for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) newlines++;
      if (chunk.length > 0) last = chunk[chunk.length - 1]!;
      if (newlines > maxLines) {
        done(tooManyLines(maxLines));
        return;
      }
      done(null, chunk);
    },
    flush(done) {
      done(newlines + (last === NEWLINE ? 0 : 1) > maxLines ? tooManyLines(maxLines) : null);
    },
  });
  // defineProperty, not Object.assign: assign would copy the getter's value once (0), not the getter.
  Object.defineProperty(counter, 'bytes', { get: () => bytes });
  return Object.assign(counter as Transform & { bytes: number }, {
    lines: () => newlines + (last === NEWLINE ? 0 : 1),
  });
}

const tooManyLines = (max: number) =>
  new GatewayError('invalid_request', 400, `the file has more than ${max} lines`, { param: 'file' });
