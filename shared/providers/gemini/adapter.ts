import { billableUsage } from '../../protocols/canonical/helpers.js';
import { contentUsageToCanonical, field } from '../../protocols/gemini/to-canonical.js';
import type { TokenUsage } from '../../billing/pricing.js';
import type { ChatAdapter } from '../chat-adapter.js';
import { UpstreamCall } from '../upstream-call.js';
import { ContentStreamScanner } from './stream-scanner.js';

export function contentUsageOf(answer: unknown): TokenUsage | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const usage = contentUsageToCanonical(field(answer as Record<string, unknown>, 'usageMetadata'));
  return (
    usage &&
    billableUsage({
      input: usage.input ?? 0,
      cacheRead: usage.cacheRead ?? 0,
      cacheWrite: 0,
      output: usage.output ?? 0,
      reasoning: usage.reasoning ?? 0,
    })
  );
}

/** generateContent upstreams: `{base_url}/v1beta/models/{model}:generateContent` (`:streamGenerateContent?alt=sse`), key in `x-goog-api-key`. */
export const geminiAdapter: ChatAdapter = {
  protocol: 'gemini',
  send(upstream, upstreamModel, body, stream) {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
    };
    if (upstream.provider.api_key) headers['x-goog-api-key'] = upstream.provider.api_key;
    const model =
      upstreamModel.startsWith('models/') || upstreamModel.startsWith('tunedModels/')
        ? upstreamModel
        : `models/${upstreamModel}`;
    const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    return new UpstreamCall(upstream.pool, {
      method: 'POST',
      path: `${upstream.basePath}/v1beta/${encodeURI(model)}:${method}`,
      headers,
      body,
    });
  },
  usageOf: contentUsageOf,
  scanner: () => new ContentStreamScanner(),
};
