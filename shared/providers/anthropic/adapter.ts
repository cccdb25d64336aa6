import { billableUsage } from '../../protocols/canonical/helpers.js';
import { messagesUsageToCanonical } from '../../protocols/anthropic/to-canonical.js';
import type { TokenUsage } from '../../billing/pricing.js';
import type { ChatAdapter } from '../chat-adapter.js';
import { UpstreamCall } from '../upstream-call.js';
import { MessagesStreamScanner } from './stream-scanner.js';

/** The API version sent when the client's own is not forwarded (a translated call). */
export const ANTHROPIC_VERSION = '2023-06-01';

export function messagesUsageOf(answer: unknown): TokenUsage | undefined {
  const usage = messagesUsageToCanonical((answer as { usage?: unknown } | null)?.usage);
  return (
    usage &&
    billableUsage({
      input: usage.input ?? 0,
      cacheRead: usage.cacheRead ?? 0,
      cacheWrite: usage.cacheWrite ?? 0,
      output: usage.output ?? 0,
      reasoning: 0,
    })
  );
}

/** Messages upstreams: `{base_url}/v1/messages`, key in `x-api-key`. */
export const anthropicAdapter: ChatAdapter = {
  protocol: 'anthropic',
  send(upstream, _upstreamModel, body, stream, forwarded) {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
      'anthropic-version': forwarded?.['anthropic-version'] ?? ANTHROPIC_VERSION,
    };
    if (forwarded?.['anthropic-beta']) headers['anthropic-beta'] = forwarded['anthropic-beta'];
    if (upstream.provider.api_key) headers['x-api-key'] = upstream.provider.api_key;
    return new UpstreamCall(upstream.pool, { method: 'POST', path: `${upstream.basePath}/v1/messages`, headers, body });
  },
  usageOf: messagesUsageOf,
  scanner: () => new MessagesStreamScanner(),
};
