import { argumentsObject, invalidField, safeToolId, untranslatable } from '../canonical/helpers.js';
import type {
  CanonicalPart,
  CanonicalRequest,
  CanonicalResponse,
  CanonicalUsage,
  StopReason,
} from '../canonical/types.js';

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** The Messages body for an upstream, from the canonical form (`maxTokens` set by the handler: Messages requires it). */
export function messagesRequestFromCanonical(
  request: CanonicalRequest,
  upstreamModel: string,
): Record<string, unknown> {
  const messages = request.messages
    .map((m, i) => ({
      role: m.role,
      content: m.role === 'assistant' ? assistantBlocks(m.parts, i) : userBlocks(m.parts),
    }))
    .filter((m) => m.content.length > 0);
  const body: Record<string, unknown> = { model: upstreamModel, max_tokens: request.maxTokens ?? 4096, messages };
  if (request.system.length > 0) body.system = request.system.join('\n\n');
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop.length > 0) body.stop_sequences = request.stop;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      name: t.name,
      ...(t.description !== undefined && { description: t.description }),
      input_schema: { type: 'object', ...t.parameters },
    }));
  }
  const choice = request.toolChoice;
  if (choice || request.serialTools) {
    const c: Record<string, unknown> =
      !choice || choice.type === 'auto'
        ? { type: 'auto' }
        : choice.type === 'none'
          ? { type: 'none' }
          : choice.type === 'required'
            ? { type: 'any' }
            : { type: 'tool', name: choice.name };
    if (request.serialTools && c.type !== 'none') c.disable_parallel_tool_use = true;
    body.tool_choice = c;
  }
  const format = request.responseFormat;
  if (format?.type === 'json_object') throw untranslatable('response_format', 'anthropic');
  if (format?.type === 'json_schema') body.output_config = { format: { type: 'json_schema', schema: format.schema } };
  for (const key in request.extras) {
    const extra = request.extras[key]!;
    if (key !== 'topK') throw untranslatable(extra.field, 'anthropic');
    body.top_k = extra.value;
  }
  if (request.stream) body.stream = true;
  return body;
}

function imageBlock(part: Extract<CanonicalPart, { type: 'image' }>): Record<string, unknown> {
  const s = part.source;
  if (s.kind === 'url') return { type: 'image', source: { type: 'url', url: s.url } };
  if (!IMAGE_TYPES.has(s.mediaType))
    throw invalidField('messages', `image type ${s.mediaType} is not accepted by this model (jpeg, png, gif or webp)`);
  return { type: 'image', source: { type: 'base64', media_type: s.mediaType, data: s.data } };
}

/** Tool results first, then the rest (Messages wants them at the start of the turn). */
function userBlocks(parts: CanonicalPart[]): Record<string, unknown>[] {
  const results: Record<string, unknown>[] = [];
  const rest: Record<string, unknown>[] = [];
  for (const part of parts) {
    if (part.type === 'tool_result')
      results.push({
        type: 'tool_result',
        tool_use_id: safeToolId(part.id),
        content: part.content,
        ...(part.isError && { is_error: true }),
      });
    else if (part.type === 'text' && part.text !== '') rest.push({ type: 'text', text: part.text });
    else if (part.type === 'image') rest.push(imageBlock(part));
  }
  return results.concat(rest);
}

function assistantBlocks(parts: CanonicalPart[], index: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  parts.forEach((part) => {
    if (part.type === 'text' && part.text !== '') out.push({ type: 'text', text: part.text });
    else if (part.type === 'tool_call')
      out.push({
        type: 'tool_use',
        id: safeToolId(part.id),
        name: part.name,
        input: argumentsObject(part.arguments, `messages[${index}].tool_calls`),
      });
  });
  return out;
}

const STOP: Record<StopReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};
export const messagesStopReason = (reason: StopReason): string => STOP[reason];

/** Messages counts input without cache reads and writes. */
export function messagesUsage(usage: CanonicalUsage): Record<string, number> {
  return {
    input_tokens: Math.max(0, usage.input - usage.cacheRead - usage.cacheWrite),
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
    output_tokens: usage.output,
  };
}

export function messagesContent(parts: CanonicalPart[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const part of parts) {
    // The real API omits `citations` when there are none: a `null` there fails strict clients.
    if (part.type === 'text') out.push({ type: 'text', text: part.text });
    else if (part.type === 'tool_call')
      out.push({
        type: 'tool_use',
        id: safeToolId(part.id),
        name: part.name,
        input: argumentsObjectOrEmpty(part.arguments),
      });
  }
  return out;
}

function argumentsObjectOrEmpty(text: string): Record<string, unknown> {
  try {
    return argumentsObject(text, 'arguments');
  } catch {
    return {}; // an upstream's malformed arguments: the client still gets the call
  }
}

export function messagesResponseFromCanonical(response: CanonicalResponse, model: string): unknown {
  return {
    id: response.id.startsWith('msg_') ? response.id : `msg_${safeToolId(response.id)}`,
    type: 'message',
    role: 'assistant',
    model,
    content: messagesContent(response.parts),
    stop_reason: STOP[response.stopReason],
    stop_sequence: null,
    usage: messagesUsage(response.usage ?? { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 }),
  };
}
