import type { TokenUsage } from '../../billing/pricing.js';
import { stringValueBytes } from '../relayed-text.js';
import { FrameScanner } from '../stream-scanner.js';
import { contentUsageOf } from './adapter.js';

const TEXT_KEYS = ['text":"'];
const USAGE_KEY = '"usageMetadata"';

/**
 * A streamGenerateContent stream passed through. It has no end marker: the frame carrying
 * `finishReason` (with the final usage) is the end, so it is held back and written by the relay once
 * the call is settled. An `{"error": …}` frame is replaced by the relay's own. Frames before the end
 * carry the running usage so far: the latest chunk is kept unread, and its last count read only if
 * the stream ends early (a complete stream never needs it).
 */
export class ContentStreamScanner extends FrameScanner {
  private final: TokenUsage | undefined;
  /** The latest chunk's complete frames (latin1 text[0, latestLength)), and the running usage read from them. */
  private latest: string | undefined;
  private latestLength = 0;
  private interim: { from: string; usage: TokenUsage | undefined } | undefined;
  private last: string | undefined;
  /** Where `"finishReason"` next occurs in the chunk being scanned (searched once per chunk, not once per frame). */
  private scanned: string | undefined;
  private finishAt = -1;

  get usage(): TokenUsage | undefined {
    if (this.final || this.latest === undefined) return this.final;
    if (this.interim?.from !== this.latest)
      this.interim = { from: this.latest, usage: runningUsage(this.latest, this.latestLength, this.boundary!) };
    return this.interim.usage;
  }

  protected scan(text: string, length: number): void {
    this.textBytes += stringValueBytes(text, TEXT_KEYS, length);
    this.latest = text;
    this.latestLength = length;
  }

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
    this.final = contentUsageOf(parsed);
    this.usageFinal = this.final !== undefined;
    this.done = true;
    this.last = frame + (this.boundary ?? '\n\n');
    return undefined;
  }

  endMarker(): string {
    return this.last ?? '';
  }
}

/** The usage the last frame holding one reports, in complete frames (latin1 text[0, length)). */
function runningUsage(text: string, length: number, boundary: string): TokenUsage | undefined {
  // The key cannot occur inside a string value (its quotes would be escaped).
  const at = text.lastIndexOf(USAGE_KEY, length);
  if (at === -1) return undefined;
  const end = text.indexOf(boundary, at);
  // From the key to the end of its frame: the rest of the frame's object.
  try {
    return contentUsageOf(JSON.parse(`{${text.slice(at, end === -1 || end > length ? length : end)}`));
  } catch {
    return undefined;
  }
}
