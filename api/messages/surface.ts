import { structuredPromptTokens } from '../../shared/billing/prompt-tokens.js';
import { messagesRequestSchema } from '../../shared/protocols/anthropic/messages-request.js';
import { parseOrThrow } from '../../shared/validation.js';
import { bearerSecret } from '../http/credential.js';
import { headerOf } from '../http/exchange.js';
import type { Surface } from '../generation/surface.js';

/** The key of a Messages call: `x-api-key` (the protocol's own) or `Authorization: Bearer` (what the SDK sends). */
export function messagesCredential(req: Parameters<Surface['credential']>[0]): string | undefined {
  return headerOf(req, 'x-api-key')?.trim() || bearerSecret(headerOf(req, 'authorization'));
}

/** `POST /native-messages/v1/messages` (and the older `/v1/messages`). */
export const messagesSurface: Surface = {
  id: 'messages',
  protocol: 'anthropic',
  credential: messagesCredential,
  credentialHint: 'send it in the x-api-key header or as Authorization: Bearer <key>',
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
  forwardedHeaders(req) {
    const version = headerOf(req, 'anthropic-version');
    const beta = headerOf(req, 'anthropic-beta');
    if (!version && !beta) return undefined;
    const headers: Record<string, string> = {};
    if (version) headers['anthropic-version'] = version;
    if (beta) headers['anthropic-beta'] = beta;
    return headers;
  },
};
