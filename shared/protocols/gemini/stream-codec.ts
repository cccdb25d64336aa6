import type { StreamDecoder, StreamEncoder, StreamEncoderOptions } from '../canonical/codec.js';
import { argumentsObjectLoose, isRecord, syntheticId } from '../canonical/helpers.js';
import { sseData, type SseFrame } from '../canonical/sse.js';
import type { CanonicalEvent, CanonicalUsage, StopReason } from '../canonical/types.js';
import { contentFinishReason, contentUsage } from './from-canonical.js';
import { candidateParts, contentStopReason, contentUsageToCanonical, field } from './to-canonical.js';

/** A streamGenerateContent (`alt=sse`) stream as canonical events; the frame with `finishReason` ends it. */
export class ContentStreamDecoder implements StreamDecoder {
  private started = false;
  private tools = 0;

  frame(frame: SseFrame): CanonicalEvent[] {
    let body: unknown;
    try {
      body = JSON.parse(frame.data);
    } catch {
      return [];
    }
    if (!isRecord(body)) return [];
    if (body.error !== undefined) return [{ type: 'error' }];
    const events: CanonicalEvent[] = [];
    if (!this.started) {
      this.started = true;
      events.push({
        type: 'start',
        id: String(field(body, 'responseId') ?? ''),
        model: String(field(body, 'modelVersion') ?? ''),
      });
    }
    const { parts, finishReason } = candidateParts(body, this.tools);
    for (const part of parts) {
      if (part.type === 'text') events.push({ type: 'text', text: part.text });
      else if (part.type === 'tool_call') {
        // generateContent sends each call whole: its start and all its arguments at once.
        const index = this.tools++;
        events.push(
          { type: 'tool_call_start', index, id: part.id, name: part.name },
          { type: 'tool_call_args', index, fragment: part.arguments },
        );
      }
    }
    const finished = finishReason !== undefined && finishReason !== null;
    // Frames before the end carry the running count so far; the finishing frame's is the final one.
    const usage = contentUsageToCanonical(field(body, 'usageMetadata'));
    if (usage) events.push({ type: 'usage', usage, final: finished });
    if (finished) {
      events.push({ type: 'finish', stopReason: contentStopReason(finishReason, this.tools > 0) }, { type: 'done' });
    }
    return events;
  }
}

interface BufferedCall {
  id: string;
  name: string;
  args: string;
}

/** Canonical events as a streamGenerateContent stream; streamed tool arguments are buffered until each call is whole. */
export class ContentStreamEncoder implements StreamEncoder {
  private id = syntheticId('');
  private calls = new Map<number, BufferedCall>();

  constructor(private readonly options: StreamEncoderOptions) {}

  private textPrefix: string | undefined;
  private textSuffix = '';

  /** A text frame, the hottest: its fixed parts are built once per stream. */
  private textFrame(text: string): string {
    if (this.textPrefix === undefined) {
      const sample = this.frame([{ text: '\u0000' }]);
      const at = sample.indexOf('"\\u0000"');
      this.textPrefix = sample.slice(0, at);
      this.textSuffix = sample.slice(at + 8);
    }
    return this.textPrefix + JSON.stringify(text) + this.textSuffix;
  }

  private frame(parts: Record<string, unknown>[], extra?: Record<string, unknown>): string {
    const candidate: Record<string, unknown> = { content: { role: 'model', parts }, index: 0 };
    if (extra?.finishReason) candidate.finishReason = extra.finishReason;
    const body: Record<string, unknown> = { candidates: [candidate] };
    if (extra?.usageMetadata) body.usageMetadata = extra.usageMetadata;
    body.modelVersion = this.options.model;
    body.responseId = this.id;
    return sseData(body);
  }

  private callParts(): Record<string, unknown>[] {
    const parts = [...this.calls.values()].map((c) => ({
      functionCall: { id: c.id, name: c.name, args: argumentsObjectLoose(c.args) },
    }));
    this.calls.clear();
    return parts;
  }

  event(event: CanonicalEvent): string {
    switch (event.type) {
      case 'start':
        if (event.id) this.id = event.id;
        this.textPrefix = undefined;
        return '';
      case 'text': {
        const pending = this.calls.size > 0 ? this.frame(this.callParts()) : '';
        return pending + this.textFrame(event.text);
      }
      case 'tool_call_start':
        this.calls.set(event.index, { id: event.id, name: event.name, args: '' });
        return '';
      case 'tool_call_args': {
        const call = this.calls.get(event.index);
        if (call) call.args += event.fragment;
        return '';
      }
      default:
        return '';
    }
  }

  end(stopReason: StopReason, usage: CanonicalUsage): string {
    const parts = this.callParts();
    return this.frame(parts.length > 0 ? parts : [{ text: '' }], {
      finishReason: contentFinishReason(stopReason),
      usageMetadata: contentUsage(usage),
    });
  }
}
