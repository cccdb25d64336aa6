import { structuredPromptTokens } from '../../billing/prompt-tokens.js';
import { responsesRequestSchema } from '../../protocols/responses/responses-request.js';
import { parseOrThrow } from '../../validation.js';
import type { TextSurface } from '../text-surface.js';

/** OpenAI's Responses protocol over any chat model (always translated, stateless). */
export const responsesText: TextSurface = {
  id: 'responses',
  protocol: 'responses',
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
};
