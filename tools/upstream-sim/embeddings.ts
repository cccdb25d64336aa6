// Embeddings as OpenAI (`POST /v1/embeddings`) and Gemini (`:embedContent`, `:batchEmbedContents`)
// answer them: deterministic vectors (the same text always gives the same vector), the same faults.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './http-io.js';
import {
  invalidRequest,
  openAiError,
  rateLimited,
  sendOpenAiError,
  serverError,
  unauthorized,
} from './openai-errors.js';
import { answeredByFault, isRecord, readSimRequest, type ProtocolErrors } from './sim-request.js';
import type { SimContext } from './sim-context.js';
import { countWords } from './tokens.js';

/** Default vector length (`dimensions` / `outputDimensionality` change it). */
export const SIM_EMBEDDING_DIMENSIONS = 8;

/** A unit-free, reproducible vector for a text: bytes of its sha256, scaled to [-1, 1]. */
export function simVector(text: string, dimensions = SIM_EMBEDDING_DIMENSIONS): number[] {
  const vector: number[] = [];
  for (let block = 0; vector.length < dimensions; block++) {
    const digest = createHash('sha256').update(`${block}:${text}`).digest();
    for (const byte of digest) {
      if (vector.length === dimensions) break;
      vector.push(Math.round(((byte - 127.5) / 127.5) * 1e6) / 1e6);
    }
  }
  return vector;
}

const OPENAI_ERRORS: ProtocolErrors = {
  invalid: (res, message, param) => invalidRequest(res, message, param ?? null),
  tooLarge: (res) => sendOpenAiError(res, 413, openAiError('Request body too large.', 'invalid_request_error')),
  serverError,
  rateLimited,
};

export async function handleOpenAiEmbeddings(
  req: IncomingMessage,
  res: ServerResponse,
  sim: SimContext,
): Promise<void> {
  if (sim.apiKey !== undefined && req.headers.authorization !== `Bearer ${sim.apiKey}`) {
    req.resume();
    return unauthorized(res, req.headers.authorization !== undefined);
  }
  const read = await readSimRequest(
    req,
    res,
    sim,
    OPENAI_ERRORS,
    (b) => (typeof b.model === 'string' ? b.model : undefined),
    (b) => (typeof b.input === 'string' ? b.input : ''),
  );
  if (!read) return;
  const { body, behaviour, clock } = read;
  const inputs =
    typeof body.input === 'string'
      ? [body.input]
      : Array.isArray(body.input) && body.input.every((i) => typeof i === 'string')
        ? (body.input as string[])
        : undefined;
  if (typeof body.model !== 'string' || !inputs || inputs.length === 0)
    return OPENAI_ERRORS.invalid(res, "'input' and 'model' are required", 'input');
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : undefined;
  clock.after(behaviour.latencyMs, () => {
    if (answeredByFault(res, behaviour, false, OPENAI_ERRORS)) return;
    const tokens = inputs.reduce((sum, text) => sum + countWords(text), 0);
    sendJson(res, 200, {
      object: 'list',
      data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: simVector(text, dimensions) })),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  });
}

function googleError(
  res: ServerResponse,
  code: number,
  message: string,
  status: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, code, { error: { code, message, status } }, headers);
}

const GEMINI_ERRORS: ProtocolErrors = {
  invalid: (res, message) => googleError(res, 400, message, 'INVALID_ARGUMENT'),
  tooLarge: (res) => googleError(res, 413, 'Request payload size exceeds the limit.', 'INVALID_ARGUMENT'),
  serverError: (res) => googleError(res, 500, 'An internal error has occurred.', 'INTERNAL'),
  rateLimited: (res, seconds) =>
    googleError(res, 429, 'Resource has been exhausted (e.g. check quota).', 'RESOURCE_EXHAUSTED', {
      'retry-after': String(seconds),
    }),
};

function textOf(content: unknown): string | undefined {
  const parts = isRecord(content) ? content.parts : undefined;
  if (!Array.isArray(parts)) return undefined;
  return parts.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join('\n');
}

/** `/v1beta/models/{model}:embedContent` and `:batchEmbedContents`. */
export async function handleGeminiEmbeddings(
  req: IncomingMessage,
  res: ServerResponse,
  sim: SimContext,
  model: string,
  batch: boolean,
): Promise<void> {
  if (sim.apiKey !== undefined && req.headers['x-goog-api-key'] !== sim.apiKey) {
    req.resume();
    return googleError(res, 400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT');
  }
  const read = await readSimRequest(
    req,
    res,
    sim,
    GEMINI_ERRORS,
    () => model.replace(/^models\//, ''),
    () => '',
  );
  if (!read) return;
  const { body, behaviour, clock } = read;
  const requests = batch
    ? Array.isArray(body.requests)
      ? (body.requests as Record<string, unknown>[])
      : undefined
    : [body];
  const texts = requests?.map((r) => textOf(r.content));
  if (!requests || !texts || texts.length === 0 || texts.some((t) => t === undefined))
    return GEMINI_ERRORS.invalid(res, '* content: contents is not specified');
  clock.after(behaviour.latencyMs, () => {
    if (answeredByFault(res, behaviour, false, GEMINI_ERRORS)) return;
    const vectors = texts.map((text, i) => ({
      values: simVector(
        text!,
        typeof requests[i]!.outputDimensionality === 'number'
          ? (requests[i]!.outputDimensionality as number)
          : undefined,
      ),
    }));
    sendJson(res, 200, batch ? { embeddings: vectors } : { embedding: vectors[0] });
  });
}
