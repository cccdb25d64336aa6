import { StringDecoder } from 'node:string_decoder';

export interface SseFrame {
  event: string | undefined;
  data: string;
}

/**
 * Splits a server-sent-event stream into frames as chunks arrive (a frame may span chunks; a
 * multi-byte character may be cut between them). Used where a stream is translated, so every frame
 * is read anyway; pass-through streams use the byte scanners, which parse almost nothing.
 */
export class SseSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  push(chunk: Buffer): SseFrame[] {
    let text = this.pending + this.decoder.write(chunk);
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    const frames: SseFrame[] = [];
    let start = 0;
    for (let end = text.indexOf('\n\n'); end !== -1; end = text.indexOf('\n\n', start)) {
      const frame = parseFrame(text.slice(start, end));
      if (frame) frames.push(frame);
      start = end + 2;
    }
    this.pending = text.slice(start);
    return frames;
  }

  /** A last frame the stream left without its blank line. */
  flush(): SseFrame[] {
    const rest = (this.pending + this.decoder.end()).trim();
    this.pending = '';
    const frame = rest ? parseFrame(rest) : undefined;
    return frame ? [frame] : [];
  }
}

function parseFrame(block: string): SseFrame | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('data:')) data.push(line.slice(line.charCodeAt(5) === 32 ? 6 : 5));
    else if (line.startsWith('event:')) event = line.slice(6).trim();
  }
  if (data.length === 0 && event === undefined) return undefined;
  return { event, data: data.join('\n') };
}

export function sseData(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
