import type { StreamDecoder, StreamEncoder, StreamEncoderOptions } from '../canonical/codec.js';
import { isRecord, safeToolId } from '../canonical/helpers.js';
import { sseEvent, type SseFrame } from '../canonical/sse.js';
import type { CanonicalEvent, CanonicalUsage, StopReason } from '../canonical/types.js';
import { messagesStopReason as toMessagesStop, messagesUsage } from './from-canonical.js';
import { messagesStopReason, messagesUsageToCanonical } from './to-canonical.js';

/** A Messages stream (named events, `message_stop` at the end) as canonical events. */
export class MessagesStreamDecoder implements StreamDecoder {
  /** Content-block index → tool-call ordinal (tool blocks only). */
  private readonly toolOf = new Map<number, number>();
  private tools = 0;

  frame(frame: SseFrame): CanonicalEvent[] {
    let data: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(frame.data);
      if (!isRecord(parsed)) return [];
      data = parsed;
    } catch {
      return [];
    }
    const type = frame.event ?? data.type;
    switch (type) {
      case 'message_start': {
        const message = isRecord(data.message) ? data.message : {};
        const events: CanonicalEvent[] = [
          { type: 'start', id: String(message.id ?? ''), model: String(message.model ?? '') },
        ];
        // Its input count is real; its output_tokens (1 or so) is no count at all: message_delta's is final.
        const usage = messagesUsageToCanonical(message.usage);
        if (usage) events.push({ type: 'usage', usage });
        return events;
      }
      case 'content_block_start': {
        const block = isRecord(data.content_block) ? data.content_block : {};
        const index = Number(data.index);
        if (block.type === 'text' && typeof block.text === 'string' && block.text !== '')
          return [{ type: 'text', text: block.text }];
        if (block.type !== 'tool_use') return [];
        const ordinal = this.tools++;
        this.toolOf.set(index, ordinal);
        const events: CanonicalEvent[] = [
          { type: 'tool_call_start', index: ordinal, id: String(block.id ?? ''), name: String(block.name ?? '') },
        ];
        if (isRecord(block.input) && Object.keys(block.input).length > 0)
          events.push({ type: 'tool_call_args', index: ordinal, fragment: JSON.stringify(block.input) });
        return events;
      }
      case 'content_block_delta': {
        const delta = isRecord(data.delta) ? data.delta : {};
        if (delta.type === 'text_delta' && typeof delta.text === 'string') return [{ type: 'text', text: delta.text }];
        const ordinal = this.toolOf.get(Number(data.index));
        if (
          delta.type === 'input_json_delta' &&
          ordinal !== undefined &&
          typeof delta.partial_json === 'string' &&
          delta.partial_json !== ''
        ) {
          return [{ type: 'tool_call_args', index: ordinal, fragment: delta.partial_json }];
        }
        return [];
      }
      case 'message_delta': {
        const events: CanonicalEvent[] = [];
        const delta = isRecord(data.delta) ? data.delta : {};
        if (delta.stop_reason != null)
          events.push({ type: 'finish', stopReason: messagesStopReason(delta.stop_reason) });
        const usage = messagesUsageToCanonical(data.usage);
        if (usage) events.push({ type: 'usage', usage, final: true });
        return events;
      }
      case 'message_stop':
        return [{ type: 'done' }];
      case 'error':
        return [{ type: 'error' }];
      default:
        return []; // ping, content_block_stop, and events of later API versions
    }
  }
}

/** Canonical events as a Messages stream, for a client of that protocol. */
export class MessagesStreamEncoder implements StreamEncoder {
  private id = `msg_${Date.now().toString(36)}`;
  private started = false;
  private usage: Partial<CanonicalUsage> = {};
  /** The open content block's index and kind. */
  private block = -1;
  private blockKind: 'text' | 'tool' | undefined;
  private readonly blockOfTool = new Map<number, number>();

  constructor(private readonly options: StreamEncoderOptions) {}

  private start(): string {
    if (this.started) return '';
    this.started = true;
    // An upstream that counts the prompt only at the end (chat completions) leaves message_start
    // with the gateway's own count; the upstream's exact figure follows in message_delta.
    const usage = messagesUsage({
      input: this.usage.input ?? this.options.promptTokens ?? 0,
      cacheRead: this.usage.cacheRead ?? 0,
      cacheWrite: this.usage.cacheWrite ?? 0,
      output: this.usage.output ?? 0,
      reasoning: 0,
    });
    const message = {
      id: this.id,
      type: 'message',
      role: 'assistant',
      model: this.options.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    };
    return sseEvent('message_start', { type: 'message_start', message }) + sseEvent('ping', { type: 'ping' });
  }

  private closeBlock(): string {
    if (this.blockKind === undefined) return '';
    this.blockKind = undefined;
    return sseEvent('content_block_stop', { type: 'content_block_stop', index: this.block });
  }

  event(event: CanonicalEvent): string {
    switch (event.type) {
      case 'start':
        if (event.id) this.id = event.id.startsWith('msg_') ? event.id : `msg_${safeToolId(event.id)}`;
        return '';
      case 'usage':
        Object.assign(this.usage, event.usage);
        return '';
      case 'text': {
        let out = this.start();
        if (this.blockKind !== 'text') {
          out += this.closeBlock();
          this.block++;
          this.blockKind = 'text';
          out += sseEvent('content_block_start', {
            type: 'content_block_start',
            index: this.block,
            content_block: { type: 'text', text: '' },
          });
        }
        // The hottest event: written without building an object.
        return `${out}event: content_block_delta\ndata: {"type":"content_block_delta","index":${this.block},"delta":{"type":"text_delta","text":${JSON.stringify(event.text)}}}\n\n`;
      }
      case 'tool_call_start': {
        let out = this.start() + this.closeBlock();
        this.block++;
        this.blockKind = 'tool';
        this.blockOfTool.set(event.index, this.block);
        out += sseEvent('content_block_start', {
          type: 'content_block_start',
          index: this.block,
          content_block: { type: 'tool_use', id: safeToolId(event.id), name: event.name, input: {} },
        });
        return out;
      }
      case 'tool_call_args': {
        const index = this.blockOfTool.get(event.index);
        if (index === undefined) return '';
        return (
          this.start() +
          sseEvent('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: event.fragment },
          })
        );
      }
      default:
        return '';
    }
  }

  end(stopReason: StopReason, usage: CanonicalUsage): string {
    const out = this.start() + this.closeBlock();
    return (
      out +
      sseEvent('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: toMessagesStop(stopReason), stop_sequence: null },
        usage: messagesUsage(usage),
      }) +
      sseEvent('message_stop', { type: 'message_stop' })
    );
  }
}
