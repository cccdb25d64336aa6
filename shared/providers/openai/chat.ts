import type { TokenUsage } from '../../billing/pricing.js';
import type { Upstream } from '../registry.js';
import { UpstreamCall } from '../upstream-call.js';

export interface OpenAiChatCall {
  upstream: Upstream;
  /** The client's body, already parsed and validated; only `model` and `stream_options` change. */
  body: Record<string, unknown>;
  upstreamModel: string;
  stream: boolean;
}

/** Sends a chat completion to an OpenAI-protocol upstream over its pooled keep-alive connections. */
export function sendChatCompletion(call: OpenAiChatCall): UpstreamCall {
  const body: Record<string, unknown> = { ...call.body, model: call.upstreamModel };
  if (call.stream) {
    // Always ask for usage so the call can be charged; the relay hides it unless the client asked.
    const options = typeof call.body.stream_options === 'object' && call.body.stream_options !== null ? call.body.stream_options : {};
    body.stream_options = { ...options, include_usage: true };
  }
  const { provider, basePath, pool } = call.upstream;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: call.stream ? 'text/event-stream' : 'application/json' };
  if (provider.api_key) headers.authorization = `Bearer ${provider.api_key}`;
  return new UpstreamCall(pool, { method: 'POST', path: `${basePath}/chat/completions`, headers, body: JSON.stringify(body) });
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
