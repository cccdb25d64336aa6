import { promptTokenBound } from '../../shared/billing/prompt-tokens.js';
import { chatRequestSchema, maxOutputTokens } from '../../shared/protocols/openai/chat-request.js';
import { prependSystemPrompt } from '../../shared/protocols/openai/system-prompt.js';
import { parseOrThrow } from '../../shared/validation.js';
import { headerOf } from '../http/exchange.js';
import type { Surface } from '../generation/surface.js';
import { bearerSecret } from '../http/credential.js';

/** `POST /v1/chat/completions`: the key as a bearer token, the model in the body. */
export const chatCompletionsSurface: Surface = {
  id: 'chat-completions',
  protocol: 'openai',
  credential: (req) => bearerSecret(headerOf(req, 'authorization')),
  credentialHint: 'send it as Authorization: Bearer <key>',
  modelInBody: true,
  parse(body) {
    const chat = parseOrThrow(chatRequestSchema, body);
    return {
      body: chat,
      model: chat.model,
      stream: chat.stream === true,
      maxTokens: maxOutputTokens(chat, 0) || undefined,
      clientWantsUsage: chat.stream_options?.include_usage === true,
      provider: chat.provider,
      promptTokens: (model, bytes) => promptTokenBound(chat, model, bytes),
    };
  },
  withSystemPrompt: (body, text) =>
    Object.assign({}, body, { messages: prependSystemPrompt(body.messages as Record<string, unknown>[], text) }),
  forwardedHeaders: () => undefined,
};
