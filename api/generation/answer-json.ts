import type { ServerResponse } from 'node:http';
import { estimateTokensFromBytes } from '../../shared/billing/estimate.js';
import type { TokenUsage } from '../../shared/billing/pricing.js';
import { GatewayError } from '../../shared/errors.js';
import type { CallMeter } from '../../shared/gateway/call-meter.js';
import { CHAT_ADAPTERS } from '../../shared/providers/chat-adapters.js';
import { CLIENT_CODECS, CODECS } from '../../shared/protocols/codecs.js';
import { billableUsage, textOf } from '../../shared/protocols/canonical/helpers.js';
import type { ChatProtocol, ClientProtocol } from '../../shared/protocols/canonical/types.js';
import type { RoutedResponse } from '../../shared/routing/fallback.js';

const invalidAnswer = () => new GatewayError('upstream_error', 502, 'the upstream provider sent an invalid response');

/**
 * A non-streamed answer, already received whole. From an upstream of the client's protocol the
 * bytes pass through unchanged; from another it is translated through the canonical form. The
 * answer goes out once the call's settlement is written to Redis, without waiting for its reply:
 * a process killed after the client has the answer still has the call charged, and the round trip
 * is not added to the call's latency (a settlement Redis refuses is logged and expires either way).
 */
export async function answerJson(
  res: ServerResponse,
  meter: CallMeter,
  routed: RoutedResponse,
  protocol: ClientProtocol,
  promptBytes: number,
  modelId: string,
  logResponse?: (response: unknown) => void,
): Promise<void> {
  const raw = routed.response.received();
  const upstreamProtocol = routed.upstream.provider.protocol as ChatProtocol;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalidAnswer();
  }
  let body: Buffer | string = raw;
  let usage: TokenUsage | undefined;
  let outputBytes: () => number;
  if (upstreamProtocol === protocol) {
    usage = CHAT_ADAPTERS[upstreamProtocol].usageOf(parsed);
    outputBytes = () => {
      try {
        return Buffer.byteLength(textOf(CODECS[upstreamProtocol].responseToCanonical(parsed).parts));
      } catch {
        return raw.length;
      }
    };
  } else {
    let canonical;
    try {
      canonical = CODECS[upstreamProtocol].responseToCanonical(parsed);
    } catch {
      throw invalidAnswer();
    }
    usage = canonical.usage && billableUsage(canonical.usage);
    const translated = CLIENT_CODECS[protocol].responseFromCanonical(canonical, modelId);
    body = JSON.stringify(translated);
    parsed = translated;
    outputBytes = () => Buffer.byteLength(textOf(canonical.parts));
  }
  const estimated = usage === undefined;
  usage ??= { inputTokens: estimateTokensFromBytes(promptBytes), outputTokens: estimateTokensFromBytes(outputBytes()), cachedTokens: 0 };
  const settled = meter.finish({ statusCode: 200, provider: routed.upstream.provider.id, account: routed.account, usage, usageEstimated: estimated, ttftMs: meter.elapsedMs() });
  await meter.sent();
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-service-model': modelId });
  res.end(body);
  logResponse?.(parsed);
  await settled;
}
