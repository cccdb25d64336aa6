import type { TokenUsage } from '../billing/pricing.js';

/**
 * What the stream relay reads from an upstream's stream as it passes: the bytes to forward (complete
 * events only), the usage to charge, whether the stream is complete, and whether the upstream
 * failed inside it. The stream's terminal marker is never forwarded: the relay writes `endMarker()`
 * once the call is settled. One implementation per upstream protocol for same-protocol streams
 * (bytes pass through), and one translating scanner for every other pair.
 */
export interface StreamScanner {
  /** The latest usage the upstream reported, interim ones included (`message_start`'s, generateContent's running counts). */
  readonly usage: TokenUsage | undefined;
  /** Whether `usage` is the upstream's final count; until then a stream is charged with the estimate too (shared/billing/estimate.ts). */
  readonly usageFinal: boolean;
  readonly done: boolean;
  readonly upstreamError: boolean;
  /** Bytes of text (content, reasoning, tool arguments) in the events relayed: the output estimate of a stream that ends early. */
  readonly textBytes: number;
  push(chunk: Buffer): Buffer | undefined;
  /** A trailing event that had no blank line after it when the stream ended. */
  flush(): Buffer | undefined;
  /** The bytes that complete the stream for the client. */
  endMarker(): string | Buffer;
  /** The client protocol's error event where it depends on the stream so far (else the surface's own is used). */
  errorEvent?(code: string, message: string): string | undefined;
}

/**
 * A pass-through scanner for protocols whose interesting events can be told by how they begin
 * (`event: message_delta`, or a frame holding `"finishReason"`): every other event is forwarded as
 * the bytes that came without being parsed. Frames end with a blank line, `\n\n` or `\r\n\r\n`
 * (Google's servers send the latter) as the stream's first frame shows: either way the bytes pass
 * unchanged. Searches run on a latin1 copy (see the chat scanner).
 */
export abstract class FrameScanner implements StreamScanner {
  abstract readonly usage: TokenUsage | undefined;
  usageFinal = false;
  done = false;
  upstreamError = false;
  textBytes = 0;
  /** The blank line that ends a frame in this stream (decided by the first one). */
  protected boundary: string | undefined;
  private pending: Buffer | undefined;

  /** Whether a frame (latin1 text, without its blank line) must be looked at. */
  protected abstract wants(text: string, start: number, end: number): boolean;
  /** Looks at one frame (utf8, without its blank line); returns what to forward in its place (undefined: nothing). */
  protected abstract inspect(frame: string): string | undefined;
  /** Looks at a chunk's complete frames (latin1 text[0, length)) at once: counts their text (`textBytes`). */
  protected abstract scan(text: string, length: number): void;
  abstract endMarker(): string | Buffer;

  push(chunk: Buffer): Buffer | undefined {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    const text = data.toString('latin1');
    if (this.boundary === undefined) {
      const lf = text.indexOf('\n\n');
      const crlf = text.indexOf('\r\n\r\n');
      if (lf === -1 && crlf === -1) {
        this.pending = data;
        return undefined;
      }
      this.boundary = crlf !== -1 && (lf === -1 || crlf < lf) ? '\r\n\r\n' : '\n\n';
    }
    const end = text.lastIndexOf(this.boundary);
    if (end === -1) {
      this.pending = data;
      return undefined;
    }
    const cut = end + this.boundary.length;
    this.pending = cut < data.length ? data.subarray(cut) : undefined;
    return this.forward(data.subarray(0, cut), text, cut);
  }

  flush(): Buffer | undefined {
    const rest = this.pending;
    this.pending = undefined;
    if (!rest || !rest.toString('utf8').trim()) return undefined;
    this.boundary ??= '\n\n';
    const frames = Buffer.concat([rest, Buffer.from(this.boundary)]);
    return this.forward(frames, frames.toString('latin1'), frames.length);
  }

  private forward(frames: Buffer, text: string, length: number): Buffer | undefined {
    const boundary = this.boundary!;
    this.scan(text, length);
    const out: Buffer[] = [];
    let plainFrom = 0;
    let start = 0;
    while (start < length && !this.done) {
      let end = text.indexOf(boundary, start);
      if (end === -1 || end >= length) end = length - boundary.length;
      if (this.wants(text, start, end)) {
        if (start > plainFrom) out.push(frames.subarray(plainFrom, start));
        const replaced = this.inspect(frames.toString('utf8', start, end));
        if (replaced !== undefined) out.push(Buffer.from(replaced + boundary));
        plainFrom = end + boundary.length;
      }
      start = end + boundary.length;
    }
    // What trails the terminal event is not forwarded.
    const stop = this.done ? Math.min(start, length) : length;
    if (plainFrom < stop) out.push(frames.subarray(plainFrom, stop));
    return out.length === 0 ? undefined : out.length === 1 ? out[0] : Buffer.concat(out);
  }
}
