import type { Endpoint } from '../catalog/index.js';
import type { TokenUsage } from '../billing/pricing.js';

/** One call's usage, queued in Redis (with its charge) and written to `usage_records` by the usage drain. */
export interface UsageEvent {
  id: string;
  request_id: string;
  user_id: string;
  api_key_id: string | null;
  model: string;
  provider: string | null;
  endpoint: Endpoint;
  status_code: number;
  error_code: string | null;
  stream: boolean;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  /** True when the upstream never reported usage and the streaming-billing estimate was used. */
  usage_estimated: boolean;
  /** True when the priced usage exceeded the call's reservation (the excess is charged from the balance as far as it goes). */
  over_reservation?: boolean;
  tags: string[];
  latency_ms: number;
  ttft_ms: number | null;
  /** `<provider>/<account>` that served the call (absent on records of earlier releases). */
  upstream_account?: string | null;
  template_version_id?: string | null;
  /** The protocol surface of a text call (`chat-completions`, `messages`, `generate-content`). */
  surface?: string | null;
  session_id?: string | null;
  /** Answered from the response cache (absent on records of earlier releases, and on misses). */
  cache_hit?: boolean;
  /** ISO 8601. */
  created_at: string;
}

export function usageFields(usage: TokenUsage | undefined) {
  return {
    input_tokens: usage?.inputTokens ?? 0,
    output_tokens: usage?.outputTokens ?? 0,
    cached_tokens: usage?.cachedTokens ?? 0,
  };
}
