import type { TokenUsage } from '../../billing/pricing.js';
import type { ChatAdapter } from '../chat-adapter.js';
import { rawForwardable } from '../raw-body.js';
import { STRIPPED_FIELDS } from '../unpriced-options.js';
import { UpstreamCall } from '../upstream-call.js';
import { ChatStreamScanner } from './stream-scanner.js';

export interface OpenAiChatRequest {
  /** The client's body, already parsed and validated; only `model`, `stream_options`, the output cap and stripped fields change. */
  body: Record<string, unknown>;
  /** The same body as the client sent it: forwarded byte for byte when nothing has to change. */
  raw?: Buffer | undefined;
  stream: boolean;
}

/** Chat-completions upstreams: `{base_url}/chat/completions` over pooled keep-alive connections, key as a bearer token. */
export const openAiAdapter: ChatAdapter = {
  protocol: 'openai',
  send(upstream, _upstreamModel, body, stream) {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
    };
    if (upstream.provider.api_key) headers.authorization = `Bearer ${upstream.provider.api_key}`;
    return new UpstreamCall(upstream.pool, {
      method: 'POST',
      path: `${upstream.basePath}/chat/completions`,
      headers,
      body,
    });
  },
  usageOf: (answer) => parseOpenAiUsage((answer as { usage?: unknown } | null)?.usage),
  scanner: (clientWantsUsage) => new ChatStreamScanner(clientWantsUsage),
};

// The fields the gateway reads to route, price or refuse a call (see rawForwardable); a body with
// tools is always re-serialised, since their types were checked one by one.
const READ_ONCE = [
  '"model"',
  '"max_tokens"',
  '"max_completion_tokens"',
  '"n"',
  '"stream"',
  '"stream_options"',
  '"include_usage"',
  '"modalities"',
  '"audio"',
  '"web_search_options"',
];
const NEVER_RAW = ['"tools"', 'input_audio', ...STRIPPED_FIELDS.openai.map((f) => `"${f}"`)];

export type OutputCapField = 'max_completion_tokens' | 'max_tokens';
const CAP_FIELDS: readonly OutputCapField[] = ['max_completion_tokens', 'max_tokens'];

/** Where the reserved output cap goes: the provider's field, else the field(s) the client used (OpenAI refuses both at once). */
function capFieldsFor(body: Record<string, unknown>, provider: OutputCapField | undefined): OutputCapField[] {
  if (provider) return [provider];
  const used = CAP_FIELDS.filter((f) => body[f] !== undefined && body[f] !== null);
  return used.length > 0 ? used : ['max_completion_tokens'];
}

/**
 * The client's bytes when they already say what the upstream must get (the model, usage for a
 * stream, the output cap the call was reserved for), else the body re-serialised with those set
 * and the stripped fields removed.
 */
export function openAiPassthroughBody(
  upstreamModel: string,
  request: OpenAiChatRequest,
  maxOutput: number,
  capField?: OutputCapField,
): Buffer | string {
  const options = request.body.stream_options;
  // Streams always ask for usage so the call can be charged; the relay hides it unless the client asked.
  const usageAsked =
    !request.stream ||
    (typeof options === 'object' &&
      options !== null &&
      (options as { include_usage?: unknown }).include_usage === true);
  const caps = capFieldsFor(request.body, capField);
  const capped = CAP_FIELDS.every((f) =>
    caps.includes(f) ? request.body[f] === maxOutput : request.body[f] === undefined,
  );
  const raw = request.raw;
  if (raw && usageAsked && capped && request.body.model === upstreamModel && rawForwardable(raw, READ_ONCE, NEVER_RAW))
    return raw;
  // Object.assign, not `{ ...body, model }`: see shared/routing/fallback.ts.
  const body: Record<string, unknown> = Object.assign({}, request.body);
  body.model = upstreamModel;
  for (const f of CAP_FIELDS) delete body[f];
  for (const f of caps) body[f] = maxOutput;
  for (const f of STRIPPED_FIELDS.openai) delete body[f];
  if (request.stream) {
    const usageOn: Record<string, unknown> = Object.assign(
      {},
      typeof options === 'object' && options !== null ? (options as Record<string, unknown>) : {},
    );
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
