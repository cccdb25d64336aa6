import type { TokenUsage } from '../../billing/pricing.js';
import { parseOpenAiUsage } from './chat.js';

const BOUNDARY = Buffer.from('\n\n');
const USAGE = Buffer.from('"usage":{');
const DONE = Buffer.from('[DONE]');
const ERROR = Buffer.from('data: {"error"');
const CR = 13;

/**
 * Finds what billing needs in an OpenAI chat SSE stream without parsing every event: complete
 * events are forwarded as raw bytes, and only an event that carries a usage object (or the end
 * marker, or an error) is looked at. The `"usage":{` and `[DONE]` patterns cannot occur inside a
 * JSON string (its quotes would be escaped), so a byte search is exact.
 */
export class ChatStreamScanner {
  usage: TokenUsage | undefined;
  done = false;
  upstreamError = false;
  /** Events relayed; the output-token estimate when usage never arrives. */
  events = 0;
  private pending: Buffer | undefined;

  constructor(private readonly clientWantsUsage: boolean) {}

  /** Returns the bytes to forward now (complete events only); keeps a partial event for later. */
  push(chunk: Buffer): Buffer | undefined {
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    if (data.includes(CR)) data = Buffer.from(data.toString('utf8').replace(/\r\n/g, '\n'));
    const end = data.lastIndexOf(BOUNDARY);
    if (end === -1) {
      this.pending = data;
      return undefined;
    }
    const complete = data.subarray(0, end + 2);
    this.pending = end + 2 < data.length ? data.subarray(end + 2) : undefined;
    if (!complete.includes(USAGE) && !complete.includes(DONE) && !complete.includes(ERROR)) {
      this.events += countBoundaries(complete);
      return complete;
    }
    return this.inspectEvents(complete);
  }

  /** Bytes of a trailing event that had no blank line after it when the stream ended. */
  flush(): Buffer | undefined {
    const rest = this.pending;
    this.pending = undefined;
    return rest && rest.toString('utf8').trim() ? this.inspectEvents(Buffer.concat([rest, BOUNDARY])) : undefined;
  }

  private inspectEvents(complete: Buffer): Buffer | undefined {
    const out: string[] = [];
    for (const event of complete.toString('utf8').split('\n\n')) {
      if (!event) continue;
      const forwarded = this.inspect(event);
      if (forwarded !== undefined) {
        out.push(forwarded, '\n\n');
        this.events++;
      }
    }
    return out.length ? Buffer.from(out.join('')) : undefined;
  }

  private inspect(event: string): string | undefined {
    const data = event.startsWith('data:') ? event.slice(5).trim() : undefined;
    if (data === '[DONE]') {
      this.done = true;
      return undefined; // written by the relay once the call is settled
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
    this.usage = parseOpenAiUsage(parsed.usage) ?? this.usage;
    if (this.clientWantsUsage) return event;
    if (!Array.isArray(parsed.choices) || parsed.choices.length === 0) return undefined;
    delete parsed.usage;
    return `data: ${JSON.stringify(parsed)}`;
  }
}

function countBoundaries(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(BOUNDARY); i !== -1; i = buf.indexOf(BOUNDARY, i + 2)) n++;
  return n;
}
