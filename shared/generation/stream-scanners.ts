import type { TokenUsage } from '../billing/pricing.js';
import type { StreamDecoder } from '../protocols/canonical/codec.js';
import { SseSplitter } from '../protocols/canonical/sse.js';
import { CLIENT_CODECS, CODECS } from '../protocols/codecs.js';
import { CHAT_ADAPTERS } from '../providers/chat-adapters.js';
import type { StreamScanner } from '../providers/stream-scanner.js';
import type { Passage } from './passage.js';
import type { Transcript } from './transcript.js';
import { TranslatingScanner } from './translating-scanner.js';

/**
 * The scanner a streamed answer is relayed through, by the passage of the route that answered: the
 * upstream protocol's pass-through scanner (bytes forwarded as they came), or a translating one.
 * With a transcript (the call keeps its answer), a pass-through stream is also decoded, once, for it.
 */
export function scannerFor(
  passage: Passage,
  modelId: string,
  clientWantsUsage: boolean,
  transcript: Transcript | undefined,
  /** The gateway's count of the prompt, announced where a protocol says it first (Messages' message_start). */
  promptTokens?: number,
): StreamScanner {
  if (!passage.same) {
    const encoder = CLIENT_CODECS[passage.client].streamEncoder({ model: modelId, clientWantsUsage, promptTokens });
    return new TranslatingScanner(CODECS[passage.upstream].streamDecoder(), encoder, transcript);
  }
  const scanner = CHAT_ADAPTERS[passage.upstream].scanner(clientWantsUsage);
  if (!transcript) return scanner;
  return new TranscribingScanner(scanner, CODECS[passage.upstream].streamDecoder(), transcript);
}

/** A pass-through scanner whose stream is also read into a transcript (its bytes still pass untouched). */
class TranscribingScanner implements StreamScanner {
  private readonly splitter = new SseSplitter();

  constructor(
    private readonly inner: StreamScanner,
    private readonly decoder: StreamDecoder,
    private readonly transcript: Transcript,
  ) {}

  get usage(): TokenUsage | undefined {
    return this.inner.usage;
  }
  get usageFinal(): boolean {
    return this.inner.usageFinal;
  }
  get done(): boolean {
    return this.inner.done;
  }
  get upstreamError(): boolean {
    return this.inner.upstreamError;
  }
  get textBytes(): number {
    return this.inner.textBytes;
  }

  push(chunk: Buffer): Buffer | undefined {
    this.read(this.splitter.push(chunk));
    return this.inner.push(chunk);
  }

  flush(): Buffer | undefined {
    this.read(this.splitter.flush());
    return this.inner.flush();
  }

  endMarker(): string | Buffer {
    return this.inner.endMarker();
  }

  errorEvent(code: string, message: string): string | undefined {
    return this.inner.errorEvent?.(code, message);
  }

  private read(frames: ReturnType<SseSplitter['push']>): void {
    for (const frame of frames) for (const event of this.decoder.frame(frame)) this.transcript.event(event);
  }
}
