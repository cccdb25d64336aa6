import { badRequest } from '../errors.js';
import { chatCompletionsText } from '../generation/surfaces/chat-completions.js';
import { messagesText } from '../generation/surfaces/messages.js';
import { responsesText } from '../generation/surfaces/responses.js';
import type { SurfaceCall, TextSurface } from '../generation/text-surface.js';
import type { ErrorProtocol } from '../protocols/error-bodies.js';

/** The endpoints a batch may run, each on the text surface its synchronous calls use. */
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/responses', '/v1/messages'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

export interface BatchEndpointSpec {
  surface: TextSurface;
  /** The shape of a failed line's error body: the endpoint's own. */
  errors: ErrorProtocol;
}

export const ENDPOINT_SPECS: Readonly<Record<BatchEndpoint, BatchEndpointSpec>> = {
  '/v1/chat/completions': { surface: chatCompletionsText, errors: 'openai' },
  '/v1/responses': { surface: responsesText, errors: 'responses' },
  '/v1/messages': { surface: messagesText, errors: 'anthropic' },
};

/**
 * A line's body checked as its endpoint's synchronous call would check it (400 naming the field);
 * a batch answers whole, so a line may not ask for a stream.
 */
export function parseLineBody(endpoint: BatchEndpoint, body: unknown): SurfaceCall {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest("'body' must be an object", 'body');
  const parsed = ENDPOINT_SPECS[endpoint].surface.parse(body, {});
  if (parsed.stream) throw badRequest('a batch line cannot be streamed: remove `stream`', 'body.stream');
  return parsed;
}
