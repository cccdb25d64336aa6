import type { Context } from 'koa';
import { estimateTokensFromBytes } from '../../shared/billing/estimate.js';
import { GatewayError } from '../../shared/errors.js';
import type { CallMeter } from '../../shared/gateway/call-meter.js';
import { parseOpenAiUsage } from '../../shared/providers/openai/chat.js';
import type { RoutedResponse } from '../../shared/routing/fallback.js';

/** A non-streamed completion: the upstream's bytes pass through unchanged once the call is settled. */
export async function answerChatJson(ctx: Context, meter: CallMeter, routed: RoutedResponse, promptBytes: number): Promise<void> {
  const raw = Buffer.from(await routed.response.body.arrayBuffer());
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
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = raw;
}
