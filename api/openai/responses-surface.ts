import { structuredPromptTokens } from '../../shared/billing/prompt-tokens.js';
import { responsesRequestSchema } from '../../shared/protocols/responses/responses-request.js';
import { parseOrThrow } from '../../shared/validation.js';
import { headerOf } from '../http/exchange.js';
import type { Surface } from '../generation/surface.js';
import { bearerSecret } from '../http/credential.js';

/** `POST /v1/responses`: OpenAI's Responses protocol over any chat model (always translated, stateless). */
export const responsesSurface: Surface = {
  id: 'responses',
  protocol: 'responses',
  credential: (req) => bearerSecret(headerOf(req, 'authorization')),
  credentialHint: 'send it as Authorization: Bearer <key>',
  modelInBody: true,
  parse(body) {
    const request = parseOrThrow(responsesRequestSchema, body);
    return {
      body: request,
      model: request.model,
      stream: request.stream === true,
      maxTokens: request.max_output_tokens ?? undefined,
      clientWantsUsage: true,
      provider: (request as { provider?: unknown }).provider,
      promptTokens: (model, bytes) =>
        structuredPromptTokens(
          typeof request.input === 'string' ? [request.input] : request.input,
          [request.instructions ?? undefined, request.tools],
          model,
          bytes,
        ),
    };
  },
  withSystemPrompt(body, text) {
    const instructions =
      typeof body.instructions === 'string' && body.instructions !== '' ? `${text}\n\n${body.instructions}` : text;
    return Object.assign({}, body, { instructions });
  },
  forwardedHeaders: () => undefined,
};
