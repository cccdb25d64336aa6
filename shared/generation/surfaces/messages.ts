import { structuredPromptTokens } from '../../billing/prompt-tokens.js';
import { messagesRequestSchema } from '../../protocols/anthropic/messages-request.js';
import { parseOrThrow } from '../../validation.js';
import type { TextSurface } from '../text-surface.js';

/** The Messages protocol. */
export const messagesText: TextSurface = {
  id: 'messages',
  protocol: 'anthropic',
  modelInBody: true,
  parse(body) {
    const request = parseOrThrow(messagesRequestSchema, body);
    return {
      body: request,
      model: request.model,
      stream: request.stream === true,
      maxTokens: request.max_tokens,
      clientWantsUsage: true,
      provider: (request as { provider?: unknown }).provider,
      promptTokens: (model, bytes) =>
        structuredPromptTokens(request.messages, [request.system, request.tools], model, bytes),
    };
  },
  withSystemPrompt(body, text) {
    const system = body.system;
    const merged =
      typeof system === 'string'
        ? `${text}\n\n${system}`
        : Array.isArray(system)
          ? [{ type: 'text', text }, ...(system as unknown[])]
          : text;
    return Object.assign({}, body, { system: merged });
  },
};
