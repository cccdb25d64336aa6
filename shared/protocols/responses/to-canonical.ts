import { GatewayError } from '../../errors.js';
import { imageSource, invalidField, isRecord, nameToolResults, untranslatable } from '../canonical/helpers.js';
import type { CanonicalPart, CanonicalRequest, ChatProtocol, ToolChoice } from '../canonical/types.js';

const READ = new Set([
  'model',
  'input',
  'instructions',
  'stream',
  'max_output_tokens',
  'temperature',
  'top_p',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'text',
  'store',
  'previous_response_id',
  'background',
  'top_logprobs',
]);
/** Fields that do not change the answer: dropped (docs/reference/surfaces.md#responses). */
export const RESPONSES_INERT_FIELDS = new Set([
  'user',
  'metadata',
  'safety_identifier',
  'prompt_cache_key',
  'service_tier',
  'reasoning',
  'truncation',
  'include',
  'stream_options',
]);

/** What the gateway does not keep: a Responses call is answered and forgotten, so state-keeping fields are refused by name. */
function refuseState(body: Record<string, unknown>): void {
  if (body.store === true)
    throw new GatewayError(
      'unsupported_parameter',
      400,
      "'store': responses are not stored by this gateway; send store: false (or leave it out)",
      { param: 'store' },
    );
  if (body.previous_response_id != null)
    throw new GatewayError(
      'unsupported_parameter',
      400,
      "'previous_response_id': responses are not stored by this gateway; send the whole conversation in input",
      { param: 'previous_response_id' },
    );
  if (body.background === true)
    throw new GatewayError(
      'unsupported_parameter',
      400,
      "'background': background responses are not supported; use stream: true for long answers",
      { param: 'background' },
    );
}

/** A Responses request (validated by its schema) in canonical form; every Responses call is translated. */
export function responsesRequestToCanonical(body: Record<string, unknown>, target: ChatProtocol): CanonicalRequest {
  refuseState(body);
  for (const field in body)
    if (!READ.has(field) && !RESPONSES_INERT_FIELDS.has(field) && body[field] !== null)
      throw untranslatable(field, target);
  const request: CanonicalRequest = {
    system: [],
    messages: [],
    tools: [],
    stop: [],
    extras: {},
    stream: body.stream === true,
  };
  if (typeof body.instructions === 'string' && body.instructions !== '') request.system.push(body.instructions);
  if (typeof body.input === 'string')
    request.messages.push({ role: 'user', parts: [{ type: 'text', text: body.input }] });
  else
    (body.input as Record<string, unknown>[]).forEach((item, i) => {
      addItem(request, item, `input[${i}]`);
    });
  nameToolResults(request);
  if (typeof body.max_output_tokens === 'number') request.maxTokens = body.max_output_tokens;
  if (typeof body.temperature === 'number') request.temperature = body.temperature;
  if (typeof body.top_p === 'number') request.topP = body.top_p;
  if (body.top_logprobs != null) request.extras.logprobs = { field: 'top_logprobs', value: body.top_logprobs };
  if (Array.isArray(body.tools)) {
    body.tools.forEach((tool, i) => {
      const t = tool as Record<string, unknown>;
      if (t.type !== 'function' || typeof t.name !== 'string')
        throw invalidField(`tools[${i}].type`, 'only function tools can be used here');
      request.tools.push({
        name: t.name,
        description: typeof t.description === 'string' ? t.description : undefined,
        parameters: isRecord(t.parameters) ? t.parameters : { type: 'object', properties: {} },
      });
    });
  }
  request.toolChoice = toolChoice(body.tool_choice);
  if (body.parallel_tool_calls === false) request.serialTools = { field: 'parallel_tool_calls' };
  const format = isRecord(body.text) ? body.text.format : undefined;
  if (isRecord(format) && format.type === 'json_object') request.responseFormat = { type: 'json_object' };
  else if (isRecord(format) && format.type === 'json_schema')
    request.responseFormat = {
      type: 'json_schema',
      name: typeof format.name === 'string' ? format.name : 'response',
      schema: isRecord(format.schema) ? format.schema : {},
    };
  return request;
}

function toolChoice(choice: unknown): ToolChoice | undefined {
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { type: choice };
  if (isRecord(choice) && choice.type === 'function' && typeof choice.name === 'string')
    return { type: 'tool', name: choice.name };
  return undefined;
}

function push(request: CanonicalRequest, role: 'user' | 'assistant', parts: CanonicalPart[]): void {
  const last = request.messages[request.messages.length - 1];
  if (last && last.role === role) last.parts.push(...parts);
  else request.messages.push({ role, parts });
}

function contentParts(content: unknown, field: string): CanonicalPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalidField(`${field}.content`, 'a string or an array of content parts');
  return content.map((raw, j): CanonicalPart => {
    const part = raw as Record<string, unknown>;
    const at = `${field}.content[${j}]`;
    if (
      (part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') &&
      typeof part.text === 'string'
    )
      return { type: 'text', text: part.text };
    if (part.type === 'refusal' && typeof part.refusal === 'string') return { type: 'text', text: part.refusal };
    if (part.type === 'input_image') {
      if (typeof part.image_url !== 'string' || part.image_url === '')
        throw invalidField(`${at}.image_url`, 'an image URL or data URI (file ids are not supported)');
      return { type: 'image', source: imageSource(part.image_url) };
    }
    throw invalidField(`${at}.type`, 'one of input_text, input_image, output_text');
  });
}

function addItem(request: CanonicalRequest, item: Record<string, unknown>, field: string): void {
  const type = item.type ?? 'message';
  if (type === 'message') {
    if (item.role === 'system' || item.role === 'developer') {
      request.system.push(
        contentParts(item.content, field)
          .map((p) => (p.type === 'text' ? p.text : ''))
          .join('\n'),
      );
      return;
    }
    if (item.role !== 'user' && item.role !== 'assistant')
      throw invalidField(`${field}.role`, 'one of user, assistant, system, developer');
    push(request, item.role, contentParts(item.content, field));
    return;
  }
  if (type === 'function_call') {
    if (typeof item.call_id !== 'string' || typeof item.name !== 'string')
      throw invalidField(field, 'a function_call needs call_id and name');
    push(request, 'assistant', [
      {
        type: 'tool_call',
        id: item.call_id,
        name: item.name,
        arguments: typeof item.arguments === 'string' ? item.arguments : '',
      },
    ]);
    return;
  }
  if (type === 'function_call_output') {
    if (typeof item.call_id !== 'string') throw invalidField(`${field}.call_id`, 'required string');
    const output =
      typeof item.output === 'string'
        ? item.output
        : contentParts(item.output, field)
            .map((p) => (p.type === 'text' ? p.text : ''))
            .join('\n');
    push(request, 'user', [{ type: 'tool_result', id: item.call_id, name: '', content: output, isError: false }]);
    return;
  }
  if (type === 'reasoning') return; // a model's own reasoning state: not sent to another model
  throw invalidField(`${field}.type`, 'one of message, function_call, function_call_output');
}
