import type { TokenUsage } from '../billing/pricing.js';
import type { StreamDecoder, StreamEncoder } from '../protocols/canonical/codec.js';
import { billableUsage, mergeUsage } from '../protocols/canonical/helpers.js';
import { SseSplitter, type SseFrame } from '../protocols/canonical/sse.js';
import { NO_USAGE, type CanonicalUsage, type StopReason } from '../protocols/canonical/types.js';
import type { StreamScanner } from '../providers/stream-scanner.js';
import type { Transcript } from './transcript.js';

/**
 * An upstream's stream in another protocol than the client's: each chunk is decoded into canonical
 * events as it arrives and re-encoded for the client at once (nothing waits for the end except what
 * the client's protocol wants whole: generateContent tool calls). The closing frames (finish reason,
 * usage, terminal marker) are the end marker, written by the relay once the call is settled. A
 * transcript, when the call keeps its answer, sees the same events (nothing is decoded twice).
 */
export class TranslatingScanner implements StreamScanner {
  done = false;
  upstreamError = false;
  usageFinal = false;
  textBytes = 0;
  private readonly splitter = new SseSplitter();
  private counted: CanonicalUsage | undefined;
  private stopReason: StopReason = 'stop';

  constructor(
    private readonly decoder: StreamDecoder,
    private readonly encoder: StreamEncoder,
    private readonly transcript?: Transcript,
  ) {}

  get usage(): TokenUsage | undefined {
    return this.counted && billableUsage(this.counted);
  }

  push(chunk: Buffer): Buffer | undefined {
    return this.translate(this.splitter.push(chunk));
  }

  flush(): Buffer | undefined {
    return this.translate(this.splitter.flush());
  }

  endMarker(): string {
    return this.encoder.end(this.stopReason, this.counted ?? NO_USAGE);
  }

  errorEvent(code: string, message: string): string | undefined {
    return this.encoder.error?.(code, message);
  }

  private translate(frames: SseFrame[]): Buffer | undefined {
    let out = '';
    for (const frame of frames) {
      if (this.done || this.upstreamError) break;
      for (const event of this.decoder.frame(frame)) {
        switch (event.type) {
          case 'usage':
            this.counted = mergeUsage(this.counted ?? NO_USAGE, event.usage);
            this.usageFinal ||= event.final === true;
            break;
          case 'finish':
            this.stopReason = event.stopReason;
            break;
          case 'done':
            this.done = true;
            break;
          case 'error':
            this.upstreamError = true;
            break;
          case 'text':
            this.textBytes += Buffer.byteLength(event.text);
            break;
          case 'tool_call_args':
            this.textBytes += Buffer.byteLength(event.fragment);
            break;
          default:
            break;
        }
        this.transcript?.event(event);
        out += this.encoder.event(event);
      }
    }
    return out === '' ? undefined : Buffer.from(out);
  }
}
