import type { StreamDecoder, StreamEncoder, StreamEncoderOptions } from '../canonical/codec.js';
import { isRecord } from '../canonical/helpers.js';
import { sseData, type SseFrame } from '../canonical/sse.js';
import type { CanonicalEvent, CanonicalUsage, StopReason } from '../canonical/types.js';
import { openAiFinishReason, openAiUsage } from './from-canonical.js';
import { openAiStopReason, openAiUsageToCanonical } from './to-canonical.js';

/** A chat-completions stream (`data:` frames, `[DONE]` at the end) as canonical events. */
export class OpenAiStreamDecoder implements StreamDecoder {
  private started = false;

  frame(frame: SseFrame): CanonicalEvent[] {
    if (frame.data === '[DONE]') return [{ type: 'done' }];
    let chunk: unknown;
    try {
      chunk = JSON.parse(frame.data);
    } catch {
      return [];
    }
    if (!isRecord(chunk)) return [];
    if (chunk.error !== undefined) return [{ type: 'error' }];
    const events: CanonicalEvent[] = [];
    if (!this.started) {
      this.started = true;
      events.push({ type: 'start', id: String(chunk.id ?? ''), model: String(chunk.model ?? '') });
    }
    const choice = Array.isArray(chunk.choices) ? (chunk.choices[0] as Record<string, unknown> | undefined) : undefined;
    const delta = choice && isRecord(choice.delta) ? choice.delta : undefined;
    if (delta) {
      if (typeof delta.content === 'string' && delta.content !== '') events.push({ type: 'text', text: delta.content });
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls as {
          index?: unknown;
          id?: unknown;
          function?: { name?: unknown; arguments?: unknown };
        }[]) {
          const index = typeof call.index === 'number' ? call.index : 0;
          if (typeof call.id === 'string')
            events.push({ type: 'tool_call_start', index, id: call.id, name: String(call.function?.name ?? '') });
          const args = call.function?.arguments;
          if (typeof args === 'string' && args !== '') events.push({ type: 'tool_call_args', index, fragment: args });
        }
      }
    }
    if (choice && typeof choice.finish_reason === 'string')
      events.push({ type: 'finish', stopReason: openAiStopReason(choice.finish_reason) });
    const usage = openAiUsageToCanonical(chunk.usage);
    if (usage) events.push({ type: 'usage', usage, final: isFinalChunk(chunk.choices) });
    return events;
  }
}

/** A chunk with no choices, or whose choice finished: where the final usage comes (some upstreams send a running count on others). */
export function isFinalChunk(choices: unknown): boolean {
  if (!Array.isArray(choices) || choices.length === 0) return true;
  const first: unknown = choices[0];
  return isRecord(first) && typeof first.finish_reason === 'string';
}

/** Canonical events as a chat-completions stream, for a client of that protocol. */
export class OpenAiStreamEncoder implements StreamEncoder {
  private id = `chatcmpl-${Date.now().toString(36)}`;
  private readonly created = Math.floor(Date.now() / 1000);
  private started = false;

  constructor(private readonly options: StreamEncoderOptions) {}

  /** Everything of a content chunk before its text: built once per stream (text deltas are most of the events). */
  private contentPrefix: string | undefined;
  private contentSuffix = '';

  private content(text: string): string {
    if (this.contentPrefix === undefined) {
      const sample = this.chunk({ content: '\u0000' });
      const at = sample.indexOf('"\\u0000"');
      this.contentPrefix = sample.slice(0, at);
      this.contentSuffix = sample.slice(at + 8);
    }
    return this.contentPrefix + JSON.stringify(text) + this.contentSuffix;
  }

  private chunk(delta: Record<string, unknown>, finish: string | null = null): string {
    const chunk: Record<string, unknown> = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.options.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
    if (this.options.clientWantsUsage) chunk.usage = null;
    return sseData(chunk);
  }

  private start(): string {
    if (this.started) return '';
    this.started = true;
    return this.chunk({ role: 'assistant', content: '' });
  }

  event(event: CanonicalEvent): string {
    switch (event.type) {
      case 'start':
        if (event.id) this.id = event.id.startsWith('chatcmpl-') ? event.id : `chatcmpl-${event.id}`;
        this.contentPrefix = undefined;
        return this.start();
      case 'text':
        return this.start() + this.content(event.text);
      case 'tool_call_start':
        return (
          this.start() +
          this.chunk({
            tool_calls: [
              { index: event.index, id: event.id, type: 'function', function: { name: event.name, arguments: '' } },
            ],
          })
        );
      case 'tool_call_args':
        return (
          this.start() + this.chunk({ tool_calls: [{ index: event.index, function: { arguments: event.fragment } }] })
        );
      default:
        return '';
    }
  }

  end(stopReason: StopReason, usage: CanonicalUsage): string {
    let out = this.start() + this.chunk({}, openAiFinishReason(stopReason));
    if (this.options.clientWantsUsage)
      out += sseData({
        id: this.id,
        object: 'chat.completion.chunk',
        created: this.created,
        model: this.options.model,
        choices: [],
        usage: openAiUsage(usage),
      });
    return `${out}data: [DONE]\n\n`;
  }
}
