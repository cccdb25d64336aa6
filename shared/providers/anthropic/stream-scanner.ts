import { billableUsage, mergeUsage } from '../../protocols/canonical/helpers.js';
import { messagesUsageToCanonical } from '../../protocols/anthropic/to-canonical.js';
import { NO_USAGE, type CanonicalUsage } from '../../protocols/canonical/types.js';
import { FrameScanner } from '../stream-scanner.js';

const MESSAGE_STOP = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';

/**
 * A Messages stream passed through: only `message_start`, `message_delta` (usage), `message_stop`
 * (the end, written by the relay once settled) and `error` (replaced by the relay's own: an
 * upstream's text can name its account) are looked at.
 */
export class MessagesStreamScanner extends FrameScanner {
  private counted: CanonicalUsage | undefined;

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
