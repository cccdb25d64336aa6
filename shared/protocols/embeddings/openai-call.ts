import { parseOrThrow } from '../../validation.js';
import { base64Vector, type EmbeddingAnswer, type EmbeddingRequest } from './codec.js';
import { embeddingsRequestSchema } from './schemas.js';

/** An embeddings call as its protocol read it: the model, what to embed, and how to answer. */
export interface EmbeddingCall {
  model: string;
  request: EmbeddingRequest;
  /** The answer in the client's protocol. */
  render(answer: EmbeddingAnswer, inputTokens: number, model: string): unknown;
}

/** An OpenAI `/v1/embeddings` body (`encoding_format: base64` packs float32s little-endian): the API's and a batch line's. */
export function openAiEmbeddingCall(body: unknown): EmbeddingCall {
  const req = parseOrThrow(embeddingsRequestSchema, body);
  const inputs = typeof req.input === 'string' ? [req.input] : req.input;
  return {
    model: req.model,
    request: { inputs, dimensions: req.dimensions },
    render: (answer, inputTokens, model) => ({
      object: 'list',
      data: answer.vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: req.encoding_format === 'base64' ? base64Vector(vector) : vector,
      })),
      model,
      usage: { prompt_tokens: inputTokens, total_tokens: inputTokens },
    }),
  };
}
