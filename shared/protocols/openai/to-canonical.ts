import { imageSource, invalidField, isRecord, nameToolResults, untranslatable } from '../canonical/helpers.js';
import type {
  CanonicalMessage,
  CanonicalPart,
  CanonicalRequest,
  CanonicalResponse,
  CanonicalUsage,
  ChatProtocol,
  StopReason,
  ToolChoice,
} from '../canonical/types.js';

// Read by the translation itself, or the gateway's own.
const READ = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stop',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'n',
  'logprobs',
  'top_logprobs',
  'frequency_penalty',
  'presence_penalty',
  'seed',
]);
/** Fields that do not change the answer: dropped when the call is translated (docs/reference/surfaces.md). */
export const OPENAI_INERT_FIELDS = new Set([
  'user',
  'metadata',
  'store',
  'service_tier',
  'prompt_cache_key',
  'safety_identifier',
  'reasoning_effort',
  'verbosity',
  'modalities',
  'prediction',
]);

/** A chat-completions request (validated by its schema) in canonical form. */
export function openAiRequestToCanonical(body: Record<string, unknown>, target: ChatProtocol): CanonicalRequest {
  for (const field in body)
    if (!READ.has(field) && !OPENAI_INERT_FIELDS.has(field) && body[field] !== null)
      throw untranslatable(field, target);
  const request: CanonicalRequest = {
    system: [],
    messages: [],
    tools: [],
    stop: [],
    extras: {},
    stream: body.stream === true,
  };
  (body.messages as unknown[]).forEach((m, i) => {
    addMessage(request, m as Record<string, unknown>, `messages[${i}]`);
  });
  nameToolResults(request);
  request.maxTokens = num(body.max_completion_tokens) ?? num(body.max_tokens);
  request.temperature = num(body.temperature);
  request.topP = num(body.top_p);
  if (typeof body.stop === 'string') request.stop = [body.stop];
  else if (Array.isArray(body.stop)) request.stop = body.stop.filter((s): s is string => typeof s === 'string');
  if (Array.isArray(body.tools)) {
    body.tools.forEach((tool, i) => {
      const t = tool as { type?: unknown; function?: { name?: unknown; description?: unknown; parameters?: unknown } };
      if (t.type !== 'function' || !isRecord(t.function) || typeof t.function.name !== 'string')
        throw invalidField(`tools[${i}]`, 'only function tools can be translated');
      const parameters = isRecord(t.function.parameters) ? t.function.parameters : { type: 'object', properties: {} };
      request.tools.push({
        name: t.function.name,
        description: typeof t.function.description === 'string' ? t.function.description : undefined,
        parameters,
      });
    });
  }
  request.toolChoice = toolChoice(body.tool_choice);
  if (body.parallel_tool_calls === false) request.serialTools = { field: 'parallel_tool_calls' };
  const format = body.response_format;
  if (isRecord(format) && format.type === 'json_object') request.responseFormat = { type: 'json_object' };
  else if (isRecord(format) && format.type === 'json_schema' && isRecord(format.json_schema)) {
    const spec = format.json_schema;
    request.responseFormat = {
      type: 'json_schema',
      name: typeof spec.name === 'string' ? spec.name : 'response',
      schema: isRecord(spec.schema) ? spec.schema : {},
    };
  }
  if (typeof body.n === 'number' && body.n > 1) request.extras.n = { field: 'n', value: body.n };
  if (body.logprobs === true) request.extras.logprobs = { field: 'logprobs', value: true };
  if (body.top_logprobs != null) request.extras.logprobs = { field: 'top_logprobs', value: body.top_logprobs };
  for (const [field, key] of [
    ['frequency_penalty', 'frequencyPenalty'],
    ['presence_penalty', 'presencePenalty'],
    ['seed', 'seed'],
  ] as const) {
    if (typeof body[field] === 'number') request.extras[key] = { field, value: body[field] };
  }
  return request;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function toolChoice(choice: unknown): ToolChoice | undefined {
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { type: choice };
  if (isRecord(choice) && isRecord(choice.function) && typeof choice.function.name === 'string')
    return { type: 'tool', name: choice.function.name };
  return undefined;
}

function textOfContent(content: unknown, field: string): string {
  if (typeof content === 'string') return content;
  if (content == null) return '';
  const texts: string[] = [];
  (content as unknown[]).forEach((part, j) => {
    const p = part as { type?: unknown; text?: unknown };
    if (p.type !== 'text' || typeof p.text !== 'string')
      throw invalidField(`${field}.content[${j}]`, 'only text parts are allowed here');
    texts.push(p.text);
  });
  return texts.join('\n');
}

function contentParts(content: unknown, field: string): CanonicalPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (content == null) return [];
  return (content as unknown[]).map((part, j): CanonicalPart => {
    const p = part as { type?: unknown; text?: unknown; image_url?: unknown };
    if (p.type === 'text' && typeof p.text === 'string') return { type: 'text', text: p.text };
    if (p.type === 'image_url') {
      const url = typeof p.image_url === 'string' ? p.image_url : isRecord(p.image_url) ? p.image_url.url : undefined;
      if (typeof url !== 'string' || url === '')
        throw invalidField(`${field}.content[${j}].image_url.url`, 'required string');
      return { type: 'image', source: imageSource(url) };
    }
    throw invalidField(`${field}.content[${j}].type`, 'only text and image_url parts can be translated');
  });
}

function push(request: CanonicalRequest, role: CanonicalMessage['role'], parts: CanonicalPart[]): void {
  const last = request.messages[request.messages.length - 1];
  // Adjacent turns of one role become one (tool results and the text after them share a user turn).
  if (last && last.role === role) last.parts.push(...parts);
  else request.messages.push({ role, parts });
}

function addMessage(request: CanonicalRequest, m: Record<string, unknown>, field: string): void {
  switch (m.role) {
    case 'system':
    case 'developer':
      request.system.push(textOfContent(m.content, field));
      return;
    case 'user':
      push(request, 'user', contentParts(m.content, field));
      return;
    case 'assistant': {
      const parts = contentParts(m.content, field);
      if (Array.isArray(m.tool_calls)) {
        m.tool_calls.forEach((call, k) => {
          const c = call as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
          if (typeof c.id !== 'string' || !isRecord(c.function) || typeof c.function.name !== 'string')
            throw invalidField(`${field}.tool_calls[${k}]`, 'needs id and function.name');
          parts.push({
            type: 'tool_call',
            id: c.id,
            name: c.function.name,
            arguments: typeof c.function.arguments === 'string' ? c.function.arguments : '',
          });
        });
      }
      push(request, 'assistant', parts);
      return;
    }
    case 'tool': {
      if (typeof m.tool_call_id !== 'string') throw invalidField(`${field}.tool_call_id`, 'required string');
      push(request, 'user', [
        { type: 'tool_result', id: m.tool_call_id, name: '', content: textOfContent(m.content, field), isError: false },
      ]);
      return;
    }
    default:
      throw invalidField(`${field}.role`, 'one of system, developer, user, assistant, tool');
  }
}

const FINISH: Record<string, StopReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
};

export function openAiStopReason(reason: unknown): StopReason {
  return (typeof reason === 'string' && FINISH[reason]) || 'stop';
}

export function openAiUsageToCanonical(usage: unknown): Partial<CanonicalUsage> | undefined {
  if (!isRecord(usage)) return undefined;
  const prompt = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completion = isRecord(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  return {
    input: count(usage.prompt_tokens),
    cacheRead: count(prompt.cached_tokens),
    cacheWrite: count(prompt.cache_write_tokens),
    output: count(usage.completion_tokens),
    reasoning: count(completion.reasoning_tokens),
  };
}

export function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

/** A whole chat completion from an upstream, in canonical form. */
export function openAiResponseToCanonical(body: unknown): CanonicalResponse {
  if (!isRecord(body) || !Array.isArray(body.choices)) throw new Error('not a chat completion');
  const choice = (body.choices[0] ?? {}) as {
    message?: { content?: unknown; tool_calls?: unknown };
    finish_reason?: unknown;
  };
  const parts: CanonicalPart[] = [];
  const content = choice.message?.content;
  if (typeof content === 'string' && content !== '') parts.push({ type: 'text', text: content });
  if (Array.isArray(choice.message?.tool_calls)) {
    for (const call of choice.message.tool_calls as {
      id?: unknown;
      function?: { name?: unknown; arguments?: unknown };
    }[]) {
      parts.push({
        type: 'tool_call',
        id: String(call.id ?? ''),
        name: String(call.function?.name ?? ''),
        arguments: typeof call.function?.arguments === 'string' ? call.function.arguments : '',
      });
    }
  }
  const usage = openAiUsageToCanonical(body.usage);
  return {
    id: typeof body.id === 'string' ? body.id : '',
    model: typeof body.model === 'string' ? body.model : '',
    parts,
    stopReason: openAiStopReason(choice.finish_reason),
    usage: usage && {
      input: usage.input ?? 0,
      cacheRead: usage.cacheRead ?? 0,
      cacheWrite: usage.cacheWrite ?? 0,
      output: usage.output ?? 0,
      reasoning: usage.reasoning ?? 0,
    },
  };
}
