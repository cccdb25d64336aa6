import type { ServerResponse } from 'node:http';
import { estimateTokensFromBytes } from '../../shared/billing/estimate.js';
import { GatewayError } from '../../shared/errors.js';
import type { CallMeter } from '../../shared/gateway/call-meter.js';
import { parseOpenAiUsage } from '../../shared/providers/openai/chat.js';
import type { RoutedResponse } from '../../shared/routing/fallback.js';
import { sendJson } from '../http/exchange.js';

/** A non-streamed completion: the upstream's bytes pass through unchanged once the call is settled. */
export async function answerChatJson(res: ServerResponse, meter: CallMeter, routed: RoutedResponse, promptBytes: number): Promise<void> {
  const raw = await routed.response.body();
  let parsed: { usage?: unknown; choices?: { message?: { content?: unknown } }[] };
  try {
    parsed = JSON.parse(raw.toString('utf8')) as typeof parsed;
  } catch {
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
  await meter.finish({ statusCode: 200, provider: routed.upstream.provider.id, usage, usageEstimated: estimated, ttftMs: meter.elapsedMs() });
  sendJson(res, 200, raw);
}
