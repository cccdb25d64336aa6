import { billableUsage, mergeUsage } from '../../protocols/canonical/helpers.js';
import { messagesUsageToCanonical } from '../../protocols/anthropic/to-canonical.js';
import { NO_USAGE, type CanonicalUsage } from '../../protocols/canonical/types.js';
import type { TokenUsage } from '../../billing/pricing.js';
import { closingQuote } from '../relayed-text.js';
import { FrameScanner } from '../stream-scanner.js';

const MESSAGE_STOP = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';
/** Deltas name their kind first (`{"type":"text_delta","text":"…"}`): what follows this is the key of their text. */
const DELTA_KIND_END = '_delta","';

/**
 * A Messages stream passed through: only `message_start`, `message_delta` (usage), `message_stop`
 * (the end, written by the relay once settled) and `error` (replaced by the relay's own: an
 * upstream's text can name its account) are looked at. `message_start`'s usage is interim (its
 * `output_tokens` is 1 or so): only `message_delta`'s is the final count.
 */
export class MessagesStreamScanner extends FrameScanner {
  usage: TokenUsage | undefined;
  private counted: CanonicalUsage | undefined;

  protected scan(text: string, length: number): void {
    this.textBytes += deltaTextBytes(text, length);
  }

  protected wants(text: string, start: number): boolean {
    // Events are named on their first line; `event: m` starts message_start/_delta/_stop only.
    return text.startsWith('event: m', start) || text.startsWith('event: error', start);
  }

  protected inspect(frame: string): string | undefined {
    const eol = frame.indexOf('\n');
    const name = frame.slice(6, eol === -1 ? undefined : eol).trim();
    if (name === 'message_stop') {
      this.done = true;
      return undefined;
    }
    if (name === 'error') {
      this.upstreamError = true;
      return undefined;
    }
    if (name !== 'message_start' && name !== 'message_delta') return frame;
    const at = frame.indexOf('data:');
    try {
      const data = JSON.parse(frame.slice(at + 5)) as { usage?: unknown; message?: { usage?: unknown } };
      const usage = messagesUsageToCanonical(name === 'message_start' ? data.message?.usage : data.usage);
      if (usage) {
        this.counted = mergeUsage(this.counted ?? NO_USAGE, usage);
        this.usage = billableUsage(this.counted);
        if (name === 'message_delta') this.usageFinal = true;
      }
    } catch {
      // not JSON: forwarded as it came
    }
    return frame;
  }

  endMarker(): string {
    return this.boundary === '\r\n\r\n' ? MESSAGE_STOP.replace(/\n/g, '\r\n') : MESSAGE_STOP;
  }
}

/**
 * Bytes of the text deltas in complete events (latin1 text[0, length)): `text_delta`'s `text`,
 * `input_json_delta`'s `partial_json`, `thinking_delta`'s `thinking` — one search for all (see
 * shared/providers/relayed-text.ts). A signature is no text, a citation no string.
 */
function deltaTextBytes(text: string, length: number): number {
  let bytes = 0;
  let at = text.indexOf(DELTA_KIND_END);
  while (at !== -1 && at < length) {
    const key = at + DELTA_KIND_END.length;
    const keyEnd = text.indexOf('"', key);
    if (!text.startsWith('":"', keyEnd) || text.startsWith('signature"', key)) {
      at = text.indexOf(DELTA_KIND_END, key);
      continue;
    }
    const start = keyEnd + 3;
    const end = closingQuote(text, start);
    if (end === -1 || end > length) break;
    bytes += end - start;
    at = text.indexOf(DELTA_KIND_END, end + 1);
  }
  return bytes;
}
