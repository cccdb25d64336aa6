import { z } from 'zod';

/**
 * The Messages API's answers as its reference documents them, parsed strictly: every object is
 * closed (an unknown field fails), optional fields are absent rather than `null`, and a field the
 * reference types as nullable is the only place `null` may appear. Third-party clients that
 * deserialise into closed types (serde, pydantic with `extra=forbid`) fail on anything else.
 */
const int = z.number().int().nonnegative();

export const messagesUsage = z.strictObject({
  input_tokens: int,
  output_tokens: int,
  cache_creation_input_tokens: int.nullable().optional(),
  cache_read_input_tokens: int.nullable().optional(),
  server_tool_use: z.strictObject({ web_search_requests: int }).nullable().optional(),
  service_tier: z.enum(['standard', 'priority', 'batch']).nullable().optional(),
});

const textBlock = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
  citations: z.array(z.unknown()).optional(),
});
const toolUseBlock = z.strictObject({
  type: z.literal('tool_use'),
  id: z.string().regex(/^[a-zA-Z0-9_-]+$/),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});
const thinkingBlock = z.strictObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() });
export const messagesContentBlock = z.discriminatedUnion('type', [textBlock, toolUseBlock, thinkingBlock]);

const stopReason = z.enum(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal']);

export const messagesResponse = z.strictObject({
  id: z.string().startsWith('msg_'),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string().min(1),
  content: z.array(messagesContentBlock),
  stop_reason: stopReason.nullable(),
  stop_sequence: z.string().nullable(),
  usage: messagesUsage,
});

const messageStart = z.strictObject({
  type: z.literal('message_start'),
  message: messagesResponse.extend({ content: z.array(messagesContentBlock).length(0), stop_reason: z.null() }),
});
const contentBlockStart = z.strictObject({
  type: z.literal('content_block_start'),
  index: int,
  content_block: z.discriminatedUnion('type', [
    textBlock.extend({ text: z.literal('') }),
    toolUseBlock.extend({ input: z.strictObject({}) }),
    thinkingBlock,
  ]),
});
const contentBlockDelta = z.strictObject({
  type: z.literal('content_block_delta'),
  index: int,
  delta: z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text_delta'), text: z.string() }),
    z.strictObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
    z.strictObject({ type: z.literal('thinking_delta'), thinking: z.string() }),
    z.strictObject({ type: z.literal('signature_delta'), signature: z.string() }),
  ]),
});
const contentBlockStop = z.strictObject({ type: z.literal('content_block_stop'), index: int });
const messageDelta = z.strictObject({
  type: z.literal('message_delta'),
  delta: z.strictObject({ stop_reason: stopReason, stop_sequence: z.string().nullable() }),
  usage: messagesUsage.partial({ input_tokens: true }),
});
const messageStop = z.strictObject({ type: z.literal('message_stop') });
const ping = z.strictObject({ type: z.literal('ping') });
const error = z.strictObject({
  type: z.literal('error'),
  error: z.strictObject({ type: z.string(), message: z.string() }),
});

export const messagesStreamEvent = z.discriminatedUnion('type', [
  messageStart,
  contentBlockStart,
  contentBlockDelta,
  contentBlockStop,
  messageDelta,
  messageStop,
  ping,
  error,
]);
export type MessagesStreamEvent = z.infer<typeof messagesStreamEvent>;

const DELTA_OF_BLOCK: Record<string, string> = {
  text: 'text_delta',
  tool_use: 'input_json_delta',
  thinking: 'thinking_delta',
};

/**
 * The event order the reference describes: `message_start` (pings anywhere after it), then each
 * content block as start → deltas of its kind → stop with indexes 0, 1, 2…, then one
 * `message_delta` and `message_stop`. Returns the first violation, or undefined.
 */
export function messagesOrderViolation(events: MessagesStreamEvent[]): string | undefined {
  let state: 'before' | 'blocks' | 'delta' | 'stopped' = 'before';
  let open: { index: number; kind: string } | undefined;
  let next = 0;
  for (const [i, event] of events.entries()) {
    const at = `event ${i} (${event.type})`;
    if (state === 'before' && event.type !== 'message_start') return `${at}: the stream must open with message_start`;
    switch (event.type) {
      case 'message_start':
        if (state !== 'before') return `${at}: a second message_start`;
        state = 'blocks';
        break;
      case 'ping':
        break;
      case 'content_block_start':
        if (state !== 'blocks' || open) return `${at}: a block starts while another is open or after message_delta`;
        if (event.index !== next) return `${at}: index ${event.index}, expected ${next}`;
        open = { index: event.index, kind: event.content_block.type };
        break;
      case 'content_block_delta':
        if (!open || event.index !== open.index) return `${at}: a delta for a block that is not open`;
        if (event.delta.type !== DELTA_OF_BLOCK[open.kind] && event.delta.type !== 'signature_delta')
          return `${at}: ${event.delta.type} in a ${open.kind} block`;
        break;
      case 'content_block_stop':
        if (!open || event.index !== open.index) return `${at}: stop for a block that is not open`;
        open = undefined;
        next++;
        break;
      case 'message_delta':
        if (state !== 'blocks' || open) return `${at}: message_delta before every block stopped`;
        state = 'delta';
        break;
      case 'message_stop':
        if (state !== 'delta') return `${at}: message_stop without message_delta before it`;
        state = 'stopped';
        break;
      case 'error':
        return undefined; // a stream ended by an error stops wherever it was
    }
    if (state === 'stopped' && i !== events.length - 1) return `${at}: events after message_stop`;
  }
  return state === 'stopped' ? undefined : 'the stream did not end with message_stop';
}
