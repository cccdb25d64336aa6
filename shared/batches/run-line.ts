import { GatewayError, isGatewayError } from '../errors.js';
import { storeLineResult } from '../db/batches.js';
import type { GatewayServices } from '../gateway/services.js';
import type { JsonAnswer } from '../generation/json-answer.js';
import { runTextCall } from '../generation/run-text-call.js';
import { TextCall } from '../generation/text-call.js';
import { MeterChain } from '../generation/meter-chain.js';
import { runEmbeddings } from '../generation/run-embeddings.js';
import { openAiEmbeddingCall } from '../protocols/embeddings/openai-call.js';
import { withDefaultModel } from '../routing/default-model.js';
import type { TextSink } from '../generation/text-sink.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import { RENDERERS, type ErrorProtocol } from '../protocols/error-bodies.js';
import { ENDPOINT_SPECS, type BatchEndpoint } from './endpoints.js';
import { lineRequestId } from './line-ids.js';

export interface PendingLine {
  line: number;
  custom_id: string;
  body: Record<string, unknown>;
}

/** A line that must run again later: the key's rate limit (batches yield to interactive traffic), or a backing service away. */
export class LineWaits extends Error {
  constructor(readonly afterMs: number) {
    super(`the line runs again in ${afterMs} ms`);
  }
}

// Waiting is what a batch does about the gateway's own limits; a refusal for money is the line's answer.
const WAITS = new Set(['rate_limit_exceeded', 'service_unavailable']);

/**
 * One line of a batch, run as the same synchronous call runs (shared/generation/run-text-call.ts:
 * the key's group, default model and prompt template, routing and fallback, translation, the
 * reservation and limits, the charge), priced with the model's batch discount; its result stored
 * on the line before it counts. The call's request id is fixed by the batch and custom_id, so a
 * line run again after a crash is charged once. Throws LineWaits for a line to run later.
 */
export async function runLine(
  services: GatewayServices,
  key: ApiKeyContext,
  batch: { id: string; endpoint: string },
  line: PendingLine,
): Promise<void> {
  const spec = ENDPOINT_SPECS[batch.endpoint as BatchEndpoint];
  const requestId = lineRequestId(batch.id, line.custom_id);
  if (spec.surface === 'embeddings') return runEmbeddingLine(services, key, batch, line, requestId);
  const call = new TextCall(services, key, spec.surface, spec.surface.id, requestId, requestId, [...key.tags], null);
  call.batch = true;
  const sink = new LineResultSink(services, batch, line.line, requestId, spec.errors);
  const bytes = Buffer.byteLength(JSON.stringify(line.body));
  try {
    await runTextCall(services, call, sink, {
      body: { value: line.body, raw: undefined, bytes },
      params: {},
      forwarded: undefined,
      templateVars: undefined,
    });
  } catch (err) {
    throw waitFor(err);
  }
}

function waitFor(err: unknown): LineWaits {
  return new LineWaits(
    isGatewayError(err) && err.retryAfter !== undefined ? Math.max(200, err.retryAfter * 1000) : 1_000,
  );
}

const waits = (err: unknown) => !isGatewayError(err) || WAITS.has(err.code);

/** An embeddings line: the one embeddings engine (shared/generation/run-embeddings.ts), as `/v1/embeddings` runs it. */
async function runEmbeddingLine(
  services: GatewayServices,
  key: ApiKeyContext,
  batch: { id: string },
  line: PendingLine,
  requestId: string,
): Promise<void> {
  const chain = new MeterChain(services, key, 'embeddings', 'embeddings', requestId, requestId, [...key.tags]);
  chain.batch = true;
  try {
    const { provider, ...fields } = withDefaultModel(line.body, key);
    await runEmbeddings(services, chain, openAiEmbeddingCall(fields), provider, {
      limitHeaders() {},
      model() {},
      answer: async (json, inputTokens) => {
        await storeLineResult(services.db, batch.id, line.line, {
          status: 'succeeded',
          request_id: requestId,
          status_code: 200,
          response: json,
          input_tokens: inputTokens,
          finished_at: new Date(services.clock.now()),
        });
      },
    });
  } catch (err) {
    // As the text sink's `retries`: a wait is not recorded; a refusal or failure is, and is the line's answer.
    if (waits(err)) throw waitFor(err);
    await chain.meter.finish({ statusCode: (err as GatewayError).status, errorCode: (err as GatewayError).code });
    await storeLineFailure(services, batch, { line: line.line, requestId }, 'openai', err).catch((e: unknown) => {
      throw waitFor(e);
    });
  } finally {
    await chain.meter.close();
  }
}

/** A line failed (before or at its call): the error, in the endpoint's shape, stored as its result. */
export async function storeLineFailure(
  services: GatewayServices,
  batch: { id: string },
  line: { line: number; requestId: string },
  errors: ErrorProtocol,
  err: unknown,
): Promise<void> {
  const failure = isGatewayError(err) ? err : new GatewayError('internal_error', 500, 'internal error');
  await storeLineResult(services.db, batch.id, line.line, {
    status: 'failed',
    request_id: line.requestId,
    status_code: failure.status,
    response: JSON.stringify(RENDERERS[errors](failure, line.requestId)),
    finished_at: new Date(services.clock.now()),
  });
}

/** Keeps a line's answer, or its failure in the endpoint's error shape, on the line. */
class LineResultSink implements TextSink {
  constructor(
    private readonly services: GatewayServices,
    private readonly batch: { id: string },
    private readonly line: number,
    private readonly requestId: string,
    private readonly errors: ErrorProtocol,
  ) {}

  limitHeaders(): void {}
  model(): void {}

  async answer(answer: JsonAnswer): Promise<void> {
    const usage = answer.usage;
    await storeLineResult(this.services.db, this.batch.id, this.line, {
      status: 'succeeded',
      request_id: this.requestId,
      status_code: 200,
      response: typeof answer.body === 'string' ? answer.body : answer.body.toString('utf8'),
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cached_tokens: usage.cachedTokens,
      finished_at: new Date(this.services.clock.now()),
    });
  }

  async fail(err: unknown): Promise<void> {
    await storeLineFailure(this.services, this.batch, { line: this.line, requestId: this.requestId }, this.errors, err);
  }

  /** The gateway's own limits and a backing service away: nothing recorded, the line runs again later. */
  retries(err: unknown): boolean {
    return waits(err);
  }

  // A batch line answers whole (parseLineBody refuses `stream`).
  open(): void {
    throw new Error('a batch line is never streamed');
  }
  chunk(): boolean {
    throw new Error('a batch line is never streamed');
  }
  hold(): void {}
  end(): void {}
  interrupt(): void {}
}
