import { randomBase62 } from '../../ids.js';
import type { StreamEncoder, StreamEncoderOptions } from '../canonical/codec.js';
import { sseEvent } from '../canonical/sse.js';
import type { CanonicalEvent, CanonicalResponse, CanonicalUsage, StopReason } from '../canonical/types.js';

export function responsesUsage(usage: CanonicalUsage) {
  return {
    input_tokens: usage.input,
    input_tokens_details: { cached_tokens: usage.cacheRead },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: usage.input + usage.output,
  };
}

type OutputItem = Record<string, unknown>;

/** The response object's fixed fields, as OpenAI sends them for a call that kept no state. */
function responseObject(
  id: string,
  model: string,
  createdAt: number,
  status: string,
  output: OutputItem[],
  usage: CanonicalUsage | null,
  stopReason?: StopReason,
) {
  const incomplete =
    stopReason === 'length'
      ? { reason: 'max_output_tokens' }
      : stopReason === 'content_filter'
        ? { reason: 'content_filter' }
        : null;
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status,
    background: false,
    error: null,
    incomplete_details: incomplete,
    instructions: null,
    max_output_tokens: null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    truncation: 'disabled',
    usage: usage && responsesUsage(usage),
    metadata: {},
  };
}

const statusOf = (reason: StopReason) =>
  reason === 'length' || reason === 'content_filter' ? 'incomplete' : 'completed';
const newId = (prefix: string) => `${prefix}${randomBase62(24)}`;

function messageItem(id: string, text: string, status: string): OutputItem {
  return {
    type: 'message',
    id,
    status,
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
  };
}

function callItem(id: string, callId: string, name: string, args: string, status: string): OutputItem {
  return { type: 'function_call', id, call_id: callId, name, arguments: args, status };
}

/** A whole Responses answer from the canonical form. */
export function responsesResponseFromCanonical(response: CanonicalResponse, model: string): unknown {
  const output: OutputItem[] = [];
  let text = '';
  for (const part of response.parts) if (part.type === 'text') text += part.text;
  if (text !== '') output.push(messageItem(newId('msg_'), text, 'completed'));
  for (const part of response.parts)
    if (part.type === 'tool_call')
      output.push(callItem(newId('fc_'), part.id, part.name, part.arguments || '{}', 'completed'));
  return responseObject(
    newId('resp_'),
    model,
    Math.floor(Date.now() / 1000),
    statusOf(response.stopReason),
    output,
    response.usage ?? null,
    response.stopReason,
  );
}

interface OpenItem {
  kind: 'message' | 'call';
  id: string;
  outputIndex: number;
  callId?: string;
  name?: string;
  text: string;
}

/**
 * Canonical events as the Responses event stream: `response.created`, `response.in_progress`, each
 * output item announced before its deltas and closed after them, `response.completed` (or
 * `response.incomplete`) with the usage; every event numbered by `sequence_number`.
 */
export class ResponsesStreamEncoder implements StreamEncoder {
  private readonly id = newId('resp_');
  private readonly createdAt = Math.floor(Date.now() / 1000);
  private sequence = 0;
  private started = false;
  private open: OpenItem | undefined;
  private readonly done: OutputItem[] = [];
  private readonly items = new Map<number, OpenItem>();

  constructor(private readonly options: StreamEncoderOptions) {}

  private emit(type: string, data: Record<string, unknown>): string {
    return sseEvent(type, Object.assign({ type }, data, { sequence_number: this.sequence++ }));
  }

  private start(): string {
    if (this.started) return '';
    this.started = true;
    const response = responseObject(this.id, this.options.model, this.createdAt, 'in_progress', [], null);
    return this.emit('response.created', { response }) + this.emit('response.in_progress', { response });
  }

  private close(): string {
    const item = this.open;
    if (!item) return '';
    this.open = undefined;
    if (item.kind === 'message') {
      const finished = messageItem(item.id, item.text, 'completed');
      this.done.push(finished);
      const base = { item_id: item.id, output_index: item.outputIndex, content_index: 0 };
      return (
        this.emit('response.output_text.done', Object.assign({}, base, { text: item.text, logprobs: [] })) +
        this.emit(
          'response.content_part.done',
          Object.assign({}, base, { part: { type: 'output_text', text: item.text, annotations: [] } }),
        ) +
        this.emit('response.output_item.done', { output_index: item.outputIndex, item: finished })
      );
    }
    const finished = callItem(item.id, item.callId!, item.name!, item.text, 'completed');
    this.done.push(finished);
    return (
      this.emit('response.function_call_arguments.done', {
        item_id: item.id,
        output_index: item.outputIndex,
        name: item.name,
        arguments: item.text,
      }) + this.emit('response.output_item.done', { output_index: item.outputIndex, item: finished })
    );
  }

  event(event: CanonicalEvent): string {
    switch (event.type) {
      case 'start':
        return this.start();
      case 'text': {
        let out = this.start();
        if (this.open?.kind !== 'message') {
          out += this.close();
          const item: OpenItem = { kind: 'message', id: newId('msg_'), outputIndex: this.done.length, text: '' };
          this.open = item;
          out += this.emit('response.output_item.added', {
            output_index: item.outputIndex,
            item: { type: 'message', id: item.id, status: 'in_progress', role: 'assistant', content: [] },
          });
          out += this.emit('response.content_part.added', {
            item_id: item.id,
            output_index: item.outputIndex,
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [] },
          });
        }
        const item = this.open!;
        item.text += event.text;
        return (
          out +
          this.emit('response.output_text.delta', {
            item_id: item.id,
            output_index: item.outputIndex,
            content_index: 0,
            delta: event.text,
            logprobs: [],
          })
        );
      }
      case 'tool_call_start': {
        let out = this.start() + this.close();
        const item: OpenItem = {
          kind: 'call',
          id: newId('fc_'),
          outputIndex: this.done.length,
          callId: event.id,
          name: event.name,
          text: '',
        };
        this.open = item;
        this.items.set(event.index, item);
        out += this.emit('response.output_item.added', {
          output_index: item.outputIndex,
          item: callItem(item.id, event.id, event.name, '', 'in_progress'),
        });
        return out;
      }
      case 'tool_call_args': {
        const item = this.items.get(event.index);
        if (!item || item !== this.open) return '';
        item.text += event.fragment;
        return this.emit('response.function_call_arguments.delta', {
          item_id: item.id,
          output_index: item.outputIndex,
          delta: event.fragment,
        });
      }
      default:
        return '';
    }
  }

  end(stopReason: StopReason, usage: CanonicalUsage): string {
    const out = this.start() + this.close();
    const status = statusOf(stopReason);
    const response = responseObject(this.id, this.options.model, this.createdAt, status, this.done, usage, stopReason);
    return out + this.emit(status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
  }

  /** The Responses `error` event, numbered like the rest of the stream. */
  error(code: string, message: string): string {
    return this.emit('error', { code, message, param: null });
  }
}
