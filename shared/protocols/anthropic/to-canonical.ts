import { invalidField, isRecord, nameToolResults, untranslatable } from '../canonical/helpers.js';
import type {
  CanonicalPart,
  CanonicalRequest,
  CanonicalResponse,
  CanonicalUsage,
  ChatProtocol,
  StopReason,
  ToolChoice,
} from '../canonical/types.js';
import { count } from '../openai/to-canonical.js';

const READ = new Set([
  'model',
  'messages',
  'system',
  'max_tokens',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'tools',
  'tool_choice',
  'stream',
  'output_config',
]);
/** Fields that do not change the answer: dropped when the call is translated (docs/reference/surfaces.md). */
export const MESSAGES_INERT_FIELDS = new Set([
  'metadata',
  'service_tier',
  'thinking',
  'cache_control',
  'inference_geo',
]);

/** A Messages request (validated by its schema) in canonical form. */
export function messagesRequestToCanonical(body: Record<string, unknown>, target: ChatProtocol): CanonicalRequest {
  for (const field in body)
    if (!READ.has(field) && !MESSAGES_INERT_FIELDS.has(field) && body[field] !== null)
      throw untranslatable(field, target);
  const request: CanonicalRequest = {
    system: [],
    messages: [],
    tools: [],
    stop: [],
    extras: {},
    stream: body.stream === true,
  };
  if (typeof body.system === 'string') request.system.push(body.system);
  else if (Array.isArray(body.system)) request.system.push(...body.system.map((b, i) => textBlock(b, `system[${i}]`)));
  (body.messages as Record<string, unknown>[]).forEach((m, i) => {
    const field = `messages[${i}]`;
    if (m.role === 'system') {
      request.system.push(
        typeof m.content === 'string'
          ? m.content
          : (m.content as unknown[]).map((b, j) => textBlock(b, `${field}.content[${j}]`)).join('\n'),
      );
      return;
    }
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const parts =
      typeof m.content === 'string'
        ? m.content === ''
          ? []
          : [{ type: 'text', text: m.content } as CanonicalPart]
        : blocks(m.content as unknown[], field);
    const last = request.messages[request.messages.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else request.messages.push({ role, parts });
  });
  nameToolResults(request);
  request.maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : undefined;
  if (typeof body.temperature === 'number') request.temperature = body.temperature;
  if (typeof body.top_p === 'number') request.topP = body.top_p;
  if (typeof body.top_k === 'number') request.extras.topK = { field: 'top_k', value: body.top_k };
  if (Array.isArray(body.stop_sequences))
    request.stop = body.stop_sequences.filter((s): s is string => typeof s === 'string');
  if (Array.isArray(body.tools)) {
    body.tools.forEach((tool, i) => {
      const t = tool as { type?: unknown; name?: unknown; description?: unknown; input_schema?: unknown };
      if ((t.type !== undefined && t.type !== 'custom') || typeof t.name !== 'string')
        throw invalidField(`tools[${i}]`, 'only custom tools (name, input_schema) can be translated');
      request.tools.push({
        name: t.name,
        description: typeof t.description === 'string' ? t.description : undefined,
        parameters: isRecord(t.input_schema) ? t.input_schema : { type: 'object', properties: {} },
      });
    });
  }
  const choice = body.tool_choice;
  if (isRecord(choice)) {
    request.toolChoice = messagesToolChoice(choice);
    if (choice.disable_parallel_tool_use === true)
      request.serialTools = { field: 'tool_choice.disable_parallel_tool_use' };
  }
  const format = isRecord(body.output_config) ? body.output_config.format : undefined;
  if (isRecord(format) && format.type === 'json_schema')
    request.responseFormat = {
      type: 'json_schema',
      name: 'response',
      schema: isRecord(format.schema) ? format.schema : {},
    };
  return request;
}

function messagesToolChoice(choice: Record<string, unknown>): ToolChoice | undefined {
  if (choice.type === 'auto' || choice.type === 'none') return { type: choice.type };
  if (choice.type === 'any') return { type: 'required' };
  if (choice.type === 'tool' && typeof choice.name === 'string') return { type: 'tool', name: choice.name };
  return undefined;
}

function textBlock(block: unknown, field: string): string {
  const b = block as { type?: unknown; text?: unknown };
  if (b.type !== 'text' || typeof b.text !== 'string') throw invalidField(field, 'only text blocks are allowed here');
  return b.text;
}

function blocks(content: unknown[], field: string): CanonicalPart[] {
  const parts: CanonicalPart[] = [];
  content.forEach((block, j) => {
    const b = block as Record<string, unknown>;
    const at = `${field}.content[${j}]`;
    switch (b.type) {
      case 'text':
        if (typeof b.text === 'string' && b.text !== '') parts.push({ type: 'text', text: b.text });
        return;
      case 'image': {
        const source = b.source as Record<string, unknown> | undefined;
        if (source?.type === 'base64' && typeof source.media_type === 'string' && typeof source.data === 'string')
          parts.push({ type: 'image', source: { kind: 'base64', mediaType: source.media_type, data: source.data } });
        else if (source?.type === 'url' && typeof source.url === 'string')
          parts.push({ type: 'image', source: { kind: 'url', url: source.url } });
        else throw invalidField(`${at}.source`, 'a base64 or url image source');
        return;
      }
      case 'tool_use':
        if (typeof b.id !== 'string' || typeof b.name !== 'string')
          throw invalidField(at, 'tool_use needs id and name');
        parts.push({ type: 'tool_call', id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) });
        return;
      case 'tool_result': {
        if (typeof b.tool_use_id !== 'string') throw invalidField(`${at}.tool_use_id`, 'required string');
        const content =
          typeof b.content === 'string'
            ? b.content
            : Array.isArray(b.content)
              ? b.content.map((c, k) => textBlock(c, `${at}.content[${k}]`)).join('\n')
              : '';
        parts.push({ type: 'tool_result', id: b.tool_use_id, name: '', content, isError: b.is_error === true });
        return;
      }
      case 'thinking':
      case 'redacted_thinking':
        return; // a provider's own reasoning state: meaningless to another protocol (PROTOCOLS.md §6.16)
      default:
        throw invalidField(`${at}.type`, 'only text, image, tool_use and tool_result blocks can be translated');
    }
  });
  return parts;
}

const STOP: Record<string, StopReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export function messagesStopReason(reason: unknown): StopReason {
  return (typeof reason === 'string' && STOP[reason]) || 'stop';
}

/** Messages usage → canonical: its input_tokens exclude cache reads and writes (PROTOCOLS.md §2). */
export function messagesUsageToCanonical(usage: unknown): Partial<CanonicalUsage> | undefined {
  if (!isRecord(usage)) return undefined;
  const out: Partial<CanonicalUsage> = {};
  if (usage.output_tokens != null) out.output = count(usage.output_tokens);
  if (
    usage.input_tokens != null ||
    usage.cache_read_input_tokens != null ||
    usage.cache_creation_input_tokens != null
  ) {
    const read = count(usage.cache_read_input_tokens);
    const write = count(usage.cache_creation_input_tokens);
    out.input = count(usage.input_tokens) + read + write;
    out.cacheRead = read;
    out.cacheWrite = write;
  }
  return out;
}

export function messagesResponseToCanonical(body: unknown): CanonicalResponse {
  if (!isRecord(body) || !Array.isArray(body.content)) throw new Error('not a Messages response');
  const parts: CanonicalPart[] = [];
  for (const block of body.content as Record<string, unknown>[]) {
    if (block.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'tool_use')
      parts.push({
        type: 'tool_call',
        id: String(block.id ?? ''),
        name: String(block.name ?? ''),
        arguments: JSON.stringify(block.input ?? {}),
      });
  }
  const usage = messagesUsageToCanonical(body.usage);
  return {
    id: typeof body.id === 'string' ? body.id : '',
    model: typeof body.model === 'string' ? body.model : '',
    parts,
    stopReason: messagesStopReason(body.stop_reason),
    usage: usage && {
      input: usage.input ?? 0,
      cacheRead: usage.cacheRead ?? 0,
      cacheWrite: usage.cacheWrite ?? 0,
      output: usage.output ?? 0,
      reasoning: 0,
    },
  };
}
