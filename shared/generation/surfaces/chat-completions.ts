import { promptTokenBound } from '../../billing/prompt-tokens.js';
import { chatRequestSchema, maxOutputTokens, type ChatRequest } from '../../protocols/openai/chat-request.js';
import { prependSystemPrompt } from '../../protocols/openai/system-prompt.js';
import { parseOrThrow } from '../../validation.js';
import type { SurfaceCall, TextSurface } from '../text-surface.js';

/** A chat-completions body already validated (here, or by the private protocol before it was stored), read as a call. */
export function chatCompletionsCall(chat: ChatRequest): SurfaceCall {
  return {
    body: chat,
    model: chat.model,
    stream: chat.stream === true,
    maxTokens: maxOutputTokens(chat, 0) || undefined,
    clientWantsUsage: chat.stream_options?.include_usage === true,
    provider: chat.provider,
    promptTokens: (model, bytes) => promptTokenBound(chat, model, bytes),
  };
}

/** Chat completions (`POST /v1/chat/completions`, and the private protocol's chat calls). */
export const chatCompletionsText: TextSurface = {
  id: 'chat-completions',
  protocol: 'openai',
  modelInBody: true,
  parse: (body) => chatCompletionsCall(parseOrThrow(chatRequestSchema, body)),
  withSystemPrompt: (body, text) =>
    Object.assign({}, body, { messages: prependSystemPrompt(body.messages as Record<string, unknown>[], text) }),
};
