import { GatewayError } from '../../errors.js';
import type { ChatProtocol } from '../canonical/types.js';

/** An embeddings call in protocol-neutral terms. */
export interface EmbeddingRequest {
  inputs: string[];
  dimensions: number | undefined;
}

export interface EmbeddingAnswer {
  vectors: number[][];
  /** Input tokens as the upstream reported them (generateContent reports none). */
  inputTokens: number | undefined;
}

const invalidAnswer = () =>
  new GatewayError('upstream_error', 502, 'the upstream provider sent an invalid embeddings response');

/** The body an upstream of this protocol takes (generateContent: `:batchEmbedContents`). */
export function embeddingsBody(protocol: ChatProtocol, request: EmbeddingRequest, upstreamModel: string): string {
  if (protocol === 'gemini') {
    const model = upstreamModel.startsWith('models/') ? upstreamModel : `models/${upstreamModel}`;
    return JSON.stringify({
      requests: request.inputs.map((text) => ({
        model,
        content: { parts: [{ text }] },
        ...(request.dimensions !== undefined && { outputDimensionality: request.dimensions }),
      })),
    });
  }
  if (protocol === 'openai')
    return JSON.stringify({
      model: upstreamModel,
      input: request.inputs,
      encoding_format: 'float',
      ...(request.dimensions !== undefined && { dimensions: request.dimensions }),
    });
  throw new GatewayError('model_not_found', 404, 'this model has no embeddings upstream', { param: 'model' });
}

function isVector(v: unknown): v is number[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'number');
}

/** An upstream's answer as vectors (in input order) and its token count. */
export function embeddingsAnswer(protocol: ChatProtocol, body: unknown, count: number): EmbeddingAnswer {
  const b = body as Record<string, unknown> | null;
  if (protocol === 'gemini') {
    const embeddings = (b?.embeddings ?? (b?.embedding ? [b.embedding] : undefined)) as
      | { values?: unknown }[]
      | undefined;
    if (!Array.isArray(embeddings) || embeddings.length !== count || !embeddings.every((e) => isVector(e?.values)))
      throw invalidAnswer();
    return { vectors: embeddings.map((e) => e.values as number[]), inputTokens: undefined };
  }
  const data = b?.data as { index?: unknown; embedding?: unknown }[] | undefined;
  if (!Array.isArray(data) || data.length !== count) throw invalidAnswer();
  const vectors: number[][] = new Array<number[]>(count);
  for (const item of data) {
    const index = typeof item.index === 'number' ? item.index : -1;
    if (index < 0 || index >= count || !isVector(item.embedding)) throw invalidAnswer();
    vectors[index] = item.embedding;
  }
  const usage = b?.usage as { prompt_tokens?: unknown } | undefined;
  return { vectors, inputTokens: typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : undefined };
}

/** A vector as base64 of little-endian float32s, as OpenAI's `encoding_format: base64` sends it. */
export function base64Vector(vector: number[]): string {
  const floats = Float32Array.from(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}
