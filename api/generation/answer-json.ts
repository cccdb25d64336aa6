import type { ServerResponse } from 'node:http';
import type { CallMeter } from '../../shared/gateway/call-meter.js';
import { jsonAnswer } from '../../shared/providers/json-answer.js';
import type { ClientProtocol } from '../../shared/protocols/canonical/types.js';
import type { RoutedResponse } from '../../shared/routing/fallback.js';

/**
 * A non-streamed answer, already received whole (shared/providers/json-answer.ts passes it through
 * or translates it). The answer goes out once the call's settlement is written to Redis, without
 * waiting for its reply: a process killed after the client has the answer still has the call
 * charged, and the round trip is not added to the call's latency (a settlement Redis refuses is
 * logged and expires either way).
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
  const answer = jsonAnswer(routed, protocol, promptBytes, modelId);
  const settled = meter.finish({
    statusCode: 200,
    provider: routed.upstream.provider.id,
    account: routed.account,
    usage: answer.usage,
    usageEstimated: answer.estimated,
    ttftMs: meter.elapsedMs(),
  });
  await meter.sent();
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(answer.body),
    'x-service-model': modelId,
  });
  res.end(answer.body);
  logResponse?.(answer.parsed);
  await settled;
}
