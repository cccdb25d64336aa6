import type { ServerResponse } from 'node:http';
import { estimateTokensFromBytes } from '../../shared/billing/estimate.js';
import { GatewayError } from '../../shared/errors.js';
import type { CallMeter } from '../../shared/gateway/call-meter.js';
import { parseOpenAiUsage } from '../../shared/providers/openai/chat.js';
import type { RoutedResponse } from '../../shared/routing/fallback.js';

/**
 * A non-streamed completion, already received whole: the upstream's bytes pass through unchanged.
 * The answer goes out once the call's settlement is written to Redis, without waiting for its reply:
 * a process killed after the client has the answer still has the call charged, and the round trip
 * is not added to the call's latency (a settlement Redis refuses is logged and expires either way).
 */
export async function answerChatJson(
  res: ServerResponse,
  meter: CallMeter,
  routed: RoutedResponse,
  promptBytes: number,
  modelId: string,
  logResponse?: (response: unknown) => void,
): Promise<void> {
  const raw = routed.response.received();
  let parsed: { usage?: unknown; choices?: { message?: { content?: unknown } }[] };
  try {
    parsed = JSON.parse(raw.toString('utf8')) as typeof parsed;
  } catch {
    res.setHeader('X-Service-Model', modelId);
    throw new GatewayError('upstream_error', 502, 'the upstream provider sent an invalid response');
  }
  let usage = parseOpenAiUsage(parsed.usage);
  const estimated = usage === undefined;
  if (!usage) {
    const content = parsed.choices?.[0]?.message?.content;
    usage = {
      inputTokens: estimateTokensFromBytes(promptBytes),
      outputTokens: estimateTokensFromBytes(typeof content === 'string' ? Buffer.byteLength(content) : 0),
      cachedTokens: 0,
    };
  }
  const settled = meter.finish({ statusCode: 200, provider: routed.upstream.provider.id, account: routed.account, usage, usageEstimated: estimated, ttftMs: meter.elapsedMs() });
  await meter.sent();
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': raw.length, 'x-service-model': modelId });
  res.end(raw);
  logResponse?.(parsed);
  await settled;
}
