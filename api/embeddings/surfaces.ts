import type { IncomingMessage } from 'node:http';
import { embedContentSchema, batchEmbedContentsSchema } from '../../shared/protocols/embeddings/schemas.js';
import { openAiEmbeddingCall, type EmbeddingCall } from '../../shared/protocols/embeddings/openai-call.js';
import { GatewayError } from '../../shared/errors.js';
import { parseOrThrow } from '../../shared/validation.js';
import { contentCredential, modelOfPath } from '../content/surface.js';
import { bearerSecret } from '../http/credential.js';
import { headerOf } from '../http/exchange.js';

export type { EmbeddingCall };

/** One embeddings protocol as a client speaks it; the handler does the rest the same for all. */
export interface EmbeddingSurface {
  readonly id: 'embeddings' | 'embed-content' | 'batch-embed-contents';
  /** The protocol its errors are rendered in. */
  readonly protocol: 'openai' | 'gemini';
  credential(req: IncomingMessage): string | undefined;
  parse(body: unknown, pathModel: string | undefined): EmbeddingCall;
}

/** `POST /v1/embeddings` (OpenAI format). */
export const openAiEmbeddings: EmbeddingSurface = {
  id: 'embeddings',
  protocol: 'openai',
  credential: (req) => bearerSecret(headerOf(req, 'authorization')),
  parse: (body) => openAiEmbeddingCall(body),
};

const textOf = (content: { parts: { text: string }[] }) => content.parts.map((p) => p.text).join('\n');

/** `:embedContent` (generateContent format): one content → `{embedding: {values}}`. */
export const embedContent: EmbeddingSurface = {
  id: 'embed-content',
  protocol: 'gemini',
  credential: contentCredential,
  parse(body, pathModel) {
    const req = parseOrThrow(embedContentSchema, body);
    return {
      model: modelOfPath(pathModel ?? ''),
      request: { inputs: [textOf(req.content)], dimensions: req.outputDimensionality },
      render: (answer) => ({ embedding: { values: answer.vectors[0] } }),
    };
  },
};

/** `:batchEmbedContents` (generateContent format): several contents of the path's model → `{embeddings: [{values}]}`. */
export const batchEmbedContents: EmbeddingSurface = {
  id: 'batch-embed-contents',
  protocol: 'gemini',
  credential: contentCredential,
  parse(body, pathModel) {
    const req = parseOrThrow(batchEmbedContentsSchema, body);
    const model = modelOfPath(pathModel ?? '');
    req.requests.forEach((r, i) => {
      if (r.model !== undefined && modelOfPath(r.model) !== model)
        throw new GatewayError(
          'invalid_request',
          400,
          `invalid value for 'requests[${i}].model': every request must name the model of the path (models/${model})`,
          { param: `requests[${i}].model` },
        );
    });
    const dimensions = req.requests[0]?.outputDimensionality;
    return {
      model,
      request: { inputs: req.requests.map((r) => textOf(r.content)), dimensions },
      render: (answer) => ({ embeddings: answer.vectors.map((values) => ({ values })) }),
    };
  },
};
