import { badRequest } from '../errors.js';
import { chatCompletionsText } from '../generation/surfaces/chat-completions.js';
import { messagesText } from '../generation/surfaces/messages.js';
import { responsesText } from '../generation/surfaces/responses.js';
import type { TextSurface } from '../generation/text-surface.js';
import { openAiEmbeddingCall } from '../protocols/embeddings/openai-call.js';
import type { ErrorProtocol } from '../protocols/error-bodies.js';

/** The endpoints a batch may run, each on the text surface its synchronous calls use. */
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/embeddings'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

/** A text endpoint runs on its text surface (run-text-call.ts), embeddings on run-embeddings.ts. */
export interface BatchEndpointSpec {
  surface: TextSurface | 'embeddings';
  /** The shape of a failed line's error body: the endpoint's own. */
  errors: ErrorProtocol;
}

export const ENDPOINT_SPECS: Readonly<Record<BatchEndpoint, BatchEndpointSpec>> = {
  '/v1/chat/completions': { surface: chatCompletionsText, errors: 'openai' },
  '/v1/responses': { surface: responsesText, errors: 'responses' },
  '/v1/messages': { surface: messagesText, errors: 'anthropic' },
  '/v1/embeddings': { surface: 'embeddings', errors: 'openai' },
};

/**
 * A line's body checked as its endpoint's synchronous call would check it (400 naming the field);
 * a batch answers whole, so a line may not ask for a stream.
 */
export function parseLineBody(endpoint: BatchEndpoint, body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest("'body' must be an object", 'body');
  const surface = ENDPOINT_SPECS[endpoint].surface;
  if (surface === 'embeddings') {
    // `provider` is the gateway's routing field, read beside the body as the synchronous call reads it.
    const { provider: _, ...fields } = body as Record<string, unknown>;
    openAiEmbeddingCall(fields);
    return;
  }
  if (surface.parse(body, {}).stream)
    throw badRequest('a batch line cannot be streamed: remove `stream`', 'body.stream');
}
