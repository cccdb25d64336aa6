import { FrameScanner } from '../stream-scanner.js';
import { contentUsageOf } from './adapter.js';

/**
 * A streamGenerateContent stream passed through. It has no end marker: the frame carrying
 * `finishReason` (with the final usage) is the end, so it is held back and written by the relay once
 * the call is settled. An `{"error": …}` frame is replaced by the relay's own.
 */
export class ContentStreamScanner extends FrameScanner {
  private last: string | undefined;
  /** Where `"finishReason"` next occurs in the chunk being scanned (searched once per chunk, not once per frame). */
  private scanned: string | undefined;
  private finishAt = -1;

  protected wants(text: string, start: number, end: number): boolean {
    if (text.startsWith('data: {"error"', start)) return true;
    if (text !== this.scanned || (this.finishAt !== -1 && this.finishAt < start)) {
      this.scanned = text;
      this.finishAt = text.indexOf('"finishReason"', start);
    }
    return this.finishAt !== -1 && this.finishAt < end;
  }

  protected inspect(frame: string): string | undefined {
    const data = frame.slice(frame.indexOf('data:') + 5).trim();
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return frame;
    }
    if ((parsed as { error?: unknown }).error !== undefined) {
      this.upstreamError = true;
      return undefined;
    }
    this.usage = contentUsageOf(parsed) ?? this.usage;
    this.done = true;
    this.last = frame + (this.boundary ?? '\n\n');
    return undefined;
  }

  endMarker(): string {
    return this.last ?? '';
  }
}
