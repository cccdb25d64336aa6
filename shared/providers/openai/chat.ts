import type { TokenUsage } from '../../billing/pricing.js';
import type { ChatAdapter } from '../chat-adapter.js';
import { UpstreamCall } from '../upstream-call.js';
import { ChatStreamScanner } from './stream-scanner.js';

export interface OpenAiChatRequest {
  /** The client's body, already parsed and validated; only `model` and `stream_options` change. */
  body: Record<string, unknown>;
  /** The same body as the client sent it: forwarded byte for byte when nothing has to change. */
  raw?: Buffer | undefined;
  stream: boolean;
}

/** Chat-completions upstreams: `{base_url}/chat/completions` over pooled keep-alive connections, key as a bearer token. */
export const openAiAdapter: ChatAdapter = {
  protocol: 'openai',
  send(upstream, _upstreamModel, body, stream) {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
    if (upstream.provider.api_key) headers.authorization = `Bearer ${upstream.provider.api_key}`;
    return new UpstreamCall(upstream.pool, { method: 'POST', path: `${upstream.basePath}/chat/completions`, headers, body });
  },
  usageOf: (answer) => parseOpenAiUsage((answer as { usage?: unknown } | null)?.usage),
  scanner: (clientWantsUsage) => new ChatStreamScanner(clientWantsUsage),
};

// The fields the gateway reads to route and price a call. With one of them twice in a body, another
// JSON parser could read a different value than JSON.parse did (the last one): such a body is sent
// re-serialised, as the gateway understood it.
const PRICED_FIELDS = ['"model"', '"max_tokens"', '"max_completion_tokens"', '"stream"', '"stream_options"', '"include_usage"'];

function atMostOnce(text: string, needle: string): boolean {
  const first = text.indexOf(needle);
  return first === -1 || text.indexOf(needle, first + 1) === -1;
}

/** Whether each priced field appears at most once (searched in a latin1 copy: see stream-scanner.ts). */
function pricedFieldsUnique(raw: Buffer): boolean {
  const text = raw.toString('latin1');
  return PRICED_FIELDS.every((f) => atMostOnce(text, f));
}

/** The client's bytes when they already say what the upstream must get, else the body re-serialised. */
export function openAiPassthroughBody(upstreamModel: string, request: OpenAiChatRequest): Buffer | string {
  const options = request.body.stream_options;
  // Streams always ask for usage so the call can be charged; the relay hides it unless the client asked.
  const usageAsked = !request.stream || (typeof options === 'object' && options !== null && (options as { include_usage?: unknown }).include_usage === true);
  const raw = request.raw;
  if (raw && usageAsked && request.body.model === upstreamModel && pricedFieldsUnique(raw)) return raw;
  // Object.assign, not `{ ...body, model }`: see shared/routing/fallback.ts.
  const body: Record<string, unknown> = Object.assign({}, request.body);
  body.model = upstreamModel;
  if (request.stream) {
    const usageOn: Record<string, unknown> = Object.assign({}, typeof options === 'object' && options !== null ? (options as Record<string, unknown>) : {});
    usageOn.include_usage = true;
    body.stream_options = usageOn;
  }
  return JSON.stringify(body);
}

interface OpenAiUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
}

const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/** Reads an OpenAI `usage` object; anything missing or malformed counts as zero. */
export function parseOpenAiUsage(usage: unknown): TokenUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const u = usage as OpenAiUsage;
  return {
    inputTokens: count(u.prompt_tokens),
    outputTokens: count(u.completion_tokens),
    cachedTokens: count(u.prompt_tokens_details?.cached_tokens),
  };
}
