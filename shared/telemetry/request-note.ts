import type { IncomingMessage } from 'node:http';
import type { Span } from '@opentelemetry/api';
import { newRequestId } from '../ids.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EMBEDDINGS,
  GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
} from './semconv.js';
import { activeSpan } from './spans.js';

/**
 * What one HTTP request was, gathered as it runs for its access-log line and its server span:
 * the handler's layers each add what they learn (the route, the key, the metered call's model and
 * upstream). Found by the request (`noteOf`) or, from the metering that knows only the call's id,
 * by that id (`noteOfCall`). Holds ids and names only, never a secret or any content.
 */
export class RequestNote {
  readonly startedAt = performance.now();
  /** The gateway's id of the call (usage records key on it); the exchange takes it from here. */
  readonly callId = newRequestId();
  span: Span | undefined;
  route: string | undefined;
  keyId: string | undefined;
  accountId: string | undefined;
  model: string | undefined;
  provider: string | undefined;
  upstreamAccount: string | undefined;
  errorCode: string | undefined;
}

const NOTE = Symbol('request note');
const byCall = new Map<string, RequestNote>();

/** Opens the note of a request arriving (closeNote when its response is done). */
export function openNote(req: IncomingMessage): RequestNote {
  const note = new RequestNote();
  (req as IncomingMessage & { [NOTE]?: RequestNote })[NOTE] = note;
  byCall.set(note.callId, note);
  return note;
}

export function closeNote(note: RequestNote): void {
  byCall.delete(note.callId);
}

export function noteOf(req: IncomingMessage): RequestNote | undefined {
  return (req as IncomingMessage & { [NOTE]?: RequestNote })[NOTE];
}

export function noteOfCall(callId: string): RequestNote | undefined {
  return byCall.get(callId);
}

/** What a metered call adds once it is finished (CallMeter.finish): its attempt, the last one, stands. */
export interface MeteredCall {
  keyId: string;
  accountId: string;
  /** The catalog endpoint: what kind of GenAI operation it was. */
  endpoint: string;
  model: string | undefined;
  provider: string | null | undefined;
  account: string | null | undefined;
  upstreamModel: string | undefined;
  errorCode: string | null | undefined;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}

const OPERATIONS: Record<string, string> = {
  'chat/completions': GEN_AI_OPERATION_NAME_VALUE_CHAT,
  embeddings: GEN_AI_OPERATION_NAME_VALUE_EMBEDDINGS,
};

/**
 * Records a finished metered call on its request's note and its span (the server span of the
 * request, or a worker's job span), with the OpenTelemetry GenAI attributes.
 */
export function noteMeteredCall(callId: string, call: MeteredCall): void {
  const note = byCall.get(callId);
  if (note) {
    note.keyId = call.keyId;
    note.accountId = call.accountId;
    note.model = call.model;
    note.provider = call.provider ?? undefined;
    note.upstreamAccount = call.account ?? undefined;
    note.errorCode = call.errorCode ?? undefined;
  }
  const span = note ? note.span : activeSpan();
  if (!span) return;
  span.setAttribute(
    ATTR_GEN_AI_OPERATION_NAME,
    OPERATIONS[call.endpoint] ?? GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
  );
  if (call.model) span.setAttribute(ATTR_GEN_AI_REQUEST_MODEL, call.model);
  if (call.provider) span.setAttribute(ATTR_GEN_AI_PROVIDER_NAME, call.provider);
  if (call.upstreamModel) span.setAttribute(ATTR_GEN_AI_RESPONSE_MODEL, call.upstreamModel);
  if (call.inputTokens !== undefined) span.setAttribute(ATTR_GEN_AI_USAGE_INPUT_TOKENS, call.inputTokens);
  if (call.outputTokens !== undefined) span.setAttribute(ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, call.outputTokens);
  if (call.account) span.setAttribute('gateway.upstream.account', call.account);
  if (call.errorCode) span.setAttribute(ATTR_ERROR_TYPE, call.errorCode);
  span.setAttribute('gateway.key.id', call.keyId);
}
