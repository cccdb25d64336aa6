import { z } from 'zod';

/**
 * The Responses API's answer and stream events as its reference documents them, parsed strictly
 * (see messages.ts). The response object's fields the reference marks required are required here.
 */
const int = z.number().int().nonnegative();

const outputText = z.strictObject({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.unknown()),
  logprobs: z.array(z.unknown()).optional(),
});
const refusal = z.strictObject({ type: z.literal('refusal'), refusal: z.string() });
const contentPart = z.discriminatedUnion('type', [outputText, refusal]);
const itemStatus = z.enum(['in_progress', 'completed', 'incomplete']);

const messageItem = z.strictObject({
  type: z.literal('message'),
  id: z.string().min(1),
  status: itemStatus,
  role: z.literal('assistant'),
  content: z.array(contentPart),
});
const functionCallItem = z.strictObject({
  type: z.literal('function_call'),
  id: z.string().min(1).optional(),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  status: itemStatus.optional(),
});
const reasoningItem = z.strictObject({
  type: z.literal('reasoning'),
  id: z.string().min(1),
  summary: z.array(z.strictObject({ type: z.literal('summary_text'), text: z.string() })),
  content: z.array(z.unknown()).optional(),
  encrypted_content: z.string().nullable().optional(),
  status: itemStatus.optional(),
});
export const outputItem = z.discriminatedUnion('type', [messageItem, functionCallItem, reasoningItem]);

const usage = z.strictObject({
  input_tokens: int,
  input_tokens_details: z.strictObject({ cached_tokens: int }),
  output_tokens: int,
  output_tokens_details: z.strictObject({ reasoning_tokens: int }),
  total_tokens: int,
});

export const responseObject = z.strictObject({
  id: z.string().startsWith('resp_'),
  object: z.literal('response'),
  created_at: int,
  status: z.enum(['completed', 'failed', 'in_progress', 'cancelled', 'queued', 'incomplete']),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  incomplete_details: z.strictObject({ reason: z.enum(['max_output_tokens', 'content_filter']) }).nullable(),
  instructions: z.union([z.string(), z.array(z.unknown())]).nullable(),
  max_output_tokens: int.nullable(),
  model: z.string().min(1),
  output: z.array(outputItem),
  parallel_tool_calls: z.boolean(),
  previous_response_id: z.string().nullable(),
  reasoning: z.strictObject({ effort: z.string().nullable(), summary: z.string().nullable() }).nullable(),
  temperature: z.number().nullable(),
  text: z.strictObject({
    format: z.strictObject({ type: z.string() }).passthrough(),
    verbosity: z.string().optional(),
  }),
  tool_choice: z.union([z.enum(['auto', 'none', 'required']), z.record(z.string(), z.unknown())]),
  tools: z.array(z.unknown()),
  top_p: z.number().nullable(),
  truncation: z.enum(['auto', 'disabled']).nullable(),
  usage: usage.nullable(),
  metadata: z.record(z.string(), z.string()).nullable(),
  // Fields the reference lists as optional.
  background: z.boolean().nullable().optional(),
  store: z.boolean().optional(),
  user: z.string().nullable().optional(),
  service_tier: z.string().nullable().optional(),
  top_logprobs: int.nullable().optional(),
  max_tool_calls: int.nullable().optional(),
  prompt_cache_key: z.string().nullable().optional(),
  safety_identifier: z.string().nullable().optional(),
});

const seq = { sequence_number: int };
const ofResponse = <T extends string>(type: T) =>
  z.strictObject({ type: z.literal(type), response: responseObject, ...seq });
const ofPart = <T extends string>(type: T) =>
  z.strictObject({
    type: z.literal(type),
    item_id: z.string(),
    output_index: int,
    content_index: int,
    part: contentPart,
    ...seq,
  });
const ofItem = <T extends string>(type: T) =>
  z.strictObject({ type: z.literal(type), output_index: int, item: outputItem, ...seq });

export const responsesStreamEvent = z.discriminatedUnion('type', [
  ofResponse('response.created'),
  ofResponse('response.in_progress'),
  ofResponse('response.completed'),
  ofResponse('response.incomplete'),
  ofResponse('response.failed'),
  ofItem('response.output_item.added'),
  ofItem('response.output_item.done'),
  ofPart('response.content_part.added'),
  ofPart('response.content_part.done'),
  z.strictObject({
    type: z.literal('response.output_text.delta'),
    item_id: z.string(),
    output_index: int,
    content_index: int,
    delta: z.string(),
    logprobs: z.array(z.unknown()).optional(),
    obfuscation: z.string().optional(),
    ...seq,
  }),
  z.strictObject({
    type: z.literal('response.output_text.done'),
    item_id: z.string(),
    output_index: int,
    content_index: int,
    text: z.string(),
    logprobs: z.array(z.unknown()).optional(),
    ...seq,
  }),
  z.strictObject({
    type: z.literal('response.function_call_arguments.delta'),
    item_id: z.string(),
    output_index: int,
    delta: z.string(),
    obfuscation: z.string().optional(),
    ...seq,
  }),
  z.strictObject({
    type: z.literal('response.function_call_arguments.done'),
    item_id: z.string(),
    output_index: int,
    arguments: z.string(),
    name: z.string().optional(),
    ...seq,
  }),
  z.strictObject({
    type: z.literal('error'),
    code: z.string().nullable(),
    message: z.string(),
    param: z.string().nullable(),
    ...seq,
  }),
]);
export type ResponsesStreamEvent = z.infer<typeof responsesStreamEvent>;

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

/**
 * The Responses stream order: `response.created` first, sequence numbers 0, 1, 2…, every item added
 * before its parts and deltas and done after them, one terminal event last whose output holds
 * every item that was done.
 */
export function responsesOrderViolation(events: ResponsesStreamEvent[]): string | undefined {
  if (events[0]?.type !== 'response.created') return 'the stream must open with response.created';
  const open = new Map<number, string>();
  const done: unknown[] = [];
  for (const [i, event] of events.entries()) {
    const at = `event ${i} (${event.type})`;
    if (event.sequence_number !== i) return `${at}: sequence_number ${event.sequence_number}, expected ${i}`;
    if (TERMINAL.has(event.type)) {
      if (i !== events.length - 1) return `${at}: events after the terminal event`;
      if (open.size > 0) return `${at}: items still open: ${[...open.keys()].join(', ')}`;
      if ('response' in event && JSON.stringify(event.response.output) !== JSON.stringify(done))
        return `${at}: the final output differs from the items done`;
      return undefined;
    }
    if (event.type === 'response.output_item.added') {
      if (open.has(event.output_index) || event.output_index !== done.length + open.size)
        return `${at}: output_index ${event.output_index} out of order`;
      open.set(event.output_index, event.item.type);
    } else if (event.type === 'response.output_item.done') {
      if (!open.delete(event.output_index)) return `${at}: done for an item that is not open`;
      done.push(event.item);
    } else if ('output_index' in event && !open.has(event.output_index)) {
      return `${at}: an event for an item that is not open`;
    }
  }
  return 'the stream did not end with a terminal event';
}
