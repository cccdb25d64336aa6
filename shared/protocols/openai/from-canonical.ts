import { dataUri, textOf, untranslatable } from '../canonical/helpers.js';
import type {
  CanonicalPart,
  CanonicalRequest,
  CanonicalResponse,
  CanonicalUsage,
  StopReason,
} from '../canonical/types.js';

// The extras a chat-completions upstream takes, by canonical name → its field.
const EXTRAS: Record<string, string> = {
  frequencyPenalty: 'frequency_penalty',
  presencePenalty: 'presence_penalty',
  seed: 'seed',
};

/** The chat-completions body for an upstream, from the canonical form. */
export function openAiRequestFromCanonical(request: CanonicalRequest, upstreamModel: string): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  for (const text of request.system) messages.push({ role: 'system', content: text });
  for (const message of request.messages) {
    if (message.role === 'assistant') messages.push(assistantMessage(message.parts));
    else userMessages(message.parts, messages);
  }
  const body: Record<string, unknown> = { model: upstreamModel, messages };
  if (request.maxTokens !== undefined) body.max_completion_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop.length > 0) body.stop = request.stop;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description !== undefined && { description: t.description }),
        parameters: t.parameters,
      },
    }));
  }
  const choice = request.toolChoice;
  if (choice)
    body.tool_choice = choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type;
  if (request.serialTools) body.parallel_tool_calls = false;
  const format = request.responseFormat;
  if (format)
    body.response_format =
      format.type === 'json_object'
        ? format
        : { type: 'json_schema', json_schema: { name: format.name, schema: format.schema } };
  for (const key in request.extras) {
    const extra = request.extras[key]!;
    const field = EXTRAS[key];
    if (!field) throw untranslatable(extra.field, 'openai');
    body[field] = extra.value;
  }
  if (request.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

function assistantMessage(parts: CanonicalPart[]): Record<string, unknown> {
  const text = textOf(parts);
  const calls = parts
    .filter((p) => p.type === 'tool_call')
    .map((p) => ({ id: p.id, type: 'function', function: { name: p.name, arguments: p.arguments || '{}' } }));
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text === '' && calls.length > 0 ? null : text,
  };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

/** Tool results become one `tool` message each, before the user's own content (chat completions wants them right after the calls). */
function userMessages(parts: CanonicalPart[], into: Record<string, unknown>[]): void {
  const content: Record<string, unknown>[] = [];
  for (const part of parts) {
    if (part.type === 'tool_result') into.push({ role: 'tool', tool_call_id: part.id, content: part.content });
    else if (part.type === 'text') content.push({ type: 'text', text: part.text });
    else if (part.type === 'image')
      content.push({
        type: 'image_url',
        image_url: { url: part.source.kind === 'url' ? part.source.url : dataUri(part.source) },
      });
  }
  if (content.length === 0) return;
  into.push({
    role: 'user',
    content: content.length === 1 && content[0]!.type === 'text' ? content[0]!.text : content,
  });
}

const FINISH: Record<StopReason, string> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
};
export const openAiFinishReason = (reason: StopReason): string => FINISH[reason];

export function openAiUsage(usage: CanonicalUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead },
    completion_tokens_details: { reasoning_tokens: usage.reasoning },
  };
}

/** A whole chat completion for the client, from the canonical form. */
export function openAiResponseFromCanonical(response: CanonicalResponse, model: string): unknown {
  const message = assistantMessage(response.parts);
  message.refusal = null;
  return {
    id: response.id.startsWith('chatcmpl-') ? response.id : `chatcmpl-${response.id}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: FINISH[response.stopReason] }],
    usage: openAiUsage(response.usage ?? { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 }),
  };
}
