import type { TokenUsage } from '../../billing/pricing.js';
import { parseOpenAiUsage } from './chat.js';
import { isFinalChunk } from '../../protocols/openai/stream-codec.js';
import { stringValueBytes } from '../relayed-text.js';
import type { StreamScanner } from '../stream-scanner.js';

const BOUNDARY = '\n\n';
const DONE = 'data: [DONE]\n\n';
// Each can occur only in the event it marks: `"usage":{` and `{"error"` cannot appear inside a JSON
// string (their quotes would be escaped), and an event merely containing `[DONE]` is looked at and
// passed on unchanged.
const MARKERS = ['"usage":{', '[DONE]', '{"error"'];
/** Where deltas carry text: `content` (and `reasoning_content`), `reasoning`, tool-call `arguments`. */
const TEXT_KEYS = ['content":"', 'reasoning":"', 'arguments":"'];

/**
 * Finds what billing needs in an OpenAI chat SSE stream without parsing every event: complete
 * events are forwarded as the bytes that came, and only an event that carries a usage object (or
 * the end marker, or an error) is looked at.
 *
 * Searches run on a latin1 copy of each chunk (one character per byte, so positions are byte
 * offsets): V8's string search costs far less per call than Buffer.indexOf, which crosses into C++
 * and builds a search table every time.
 */
export class ChatStreamScanner implements StreamScanner {
  usage: TokenUsage | undefined;
  usageFinal = false;
  done = false;
  upstreamError = false;
  textBytes = 0;
  private pending: Buffer | undefined;

  constructor(private readonly clientWantsUsage: boolean) {}

  endMarker(): string {
    return DONE;
  }

  /** Returns the bytes to forward now (complete events only); keeps a partial event for later. */
  push(chunk: Buffer): Buffer | undefined {
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    let text = data.toString('latin1');
    if (text.includes('\r')) {
      data = Buffer.from(data.toString('utf8').replace(/\r\n/g, '\n'));
      text = data.toString('latin1');
    }
    // Nearly every chunk ends with its last event's blank line.
    const end = text.endsWith(BOUNDARY) ? text.length - 2 : text.lastIndexOf(BOUNDARY);
    if (end === -1) {
      this.pending = data;
      return undefined;
    }
    this.pending = end + 2 < data.length ? data.subarray(end + 2) : undefined;
    return this.forward(data.subarray(0, end + 2), text);
  }

  /** Bytes of a trailing event that had no blank line after it when the stream ended. */
  flush(): Buffer | undefined {
    const rest = this.pending;
    this.pending = undefined;
    if (!rest || !rest.toString('utf8').trim()) return undefined;
    const events = Buffer.concat([rest, Buffer.from(BOUNDARY)]);
    return this.forward(events, events.toString('latin1'));
  }

  /**
   * Complete events (`text` is their latin1 copy, and may run past them): runs of plain events pass
   * as they are; an event holding a marker is inspected on its own.
   */
  private forward(events: Buffer, text: string): Buffer | undefined {
    const length = events.length;
    this.textBytes += stringValueBytes(text, TEXT_KEYS, length);
    let marker = nextMarker(text, 0, length);
    if (marker === -1) return events;
    const out: Buffer[] = [];
    let plainFrom = 0;
    while (marker !== -1) {
      const before = text.lastIndexOf(BOUNDARY, marker);
      const start = before < plainFrom ? plainFrom : before + 2;
      const end = text.indexOf(BOUNDARY, marker);
      if (start > plainFrom) out.push(events.subarray(plainFrom, start));
      const forwarded = this.inspect(events.toString('utf8', start, end));
      if (forwarded !== undefined) out.push(Buffer.from(`${forwarded}\n\n`));
      plainFrom = end + 2;
      marker = nextMarker(text, plainFrom, length);
    }
    if (plainFrom < length) out.push(events.subarray(plainFrom));
    return out.length === 0 ? undefined : out.length === 1 ? out[0] : Buffer.concat(out);
  }

  private inspect(event: string): string | undefined {
    const data = event.startsWith('data:') ? event.slice(5).trim() : undefined;
    if (data === '[DONE]') {
      this.done = true;
      return undefined; // the relay writes its own, once the settlement is on its way to Redis
    }
    if (data?.startsWith('{"error"')) {
      // The relay writes its own error event: an upstream's text can name its account.
      this.upstreamError = true;
      return undefined;
    }
    if (data === undefined || !data.includes('"usage":{')) return event;
    let parsed: { usage?: unknown; choices?: unknown[] };
    try {
      parsed = JSON.parse(data) as typeof parsed;
    } catch {
      return event;
    }
    const usage = parseOpenAiUsage(parsed.usage);
    if (usage) {
      this.usage = usage;
      // OpenAI sends its count once, in a last chunk without choices; others put it on the finish chunk.
      this.usageFinal = isFinalChunk(parsed.choices);
    }
    if (this.clientWantsUsage) return event;
    if (!Array.isArray(parsed.choices) || parsed.choices.length === 0) return undefined;
    delete parsed.usage;
    return `data: ${JSON.stringify(parsed)}`;
  }
}

/** The position of the first marker in [from, to), or -1. */
function nextMarker(text: string, from: number, to: number): number {
  let next = -1;
  for (const marker of MARKERS) {
    const at = text.indexOf(marker, from);
    if (at !== -1 && at < to && (next === -1 || at < next)) next = at;
  }
  return next;
}
