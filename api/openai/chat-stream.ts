import type { ServerResponse } from 'node:http';
import { estimateTokensFromBytes } from '../../shared/billing/estimate.js';
import type { CallMeter } from '../../shared/gateway/call-meter.js';
import { ChatStreamScanner } from '../../shared/providers/openai/stream-scanner.js';
import type { RoutedResponse } from '../../shared/routing/fallback.js';

export interface RelayOptions {
  promptBytes: number;
  clientWantsUsage: boolean;
  /** True once the client went away (the handler aborts the upstream request then). */
  clientGone: () => boolean;
}

const DONE = 'data: [DONE]\n\n';

function errorEvent(code: string, message: string): string {
  return `data: ${JSON.stringify({ error: { message, type: 'api_error', param: null, code } })}\n\n`;
}

/**
 * Relays SSE events as they arrive. Once headers are sent no error can be answered any more, so the
 * relay owns the ending: the call is settled before the final `[DONE]` (a completed response always
 * has its usage record queued), and a stream the upstream cut ends with an error event, never with
 * a `[DONE]` that would make it look complete. A client that hangs up aborts the upstream request.
 */
export async function relayChatStream(res: ServerResponse, meter: CallMeter, routed: RoutedResponse, options: RelayOptions): Promise<void> {
  const upstream = routed.response;
  // Headers go out with the first event (one write, not two); Node sends them on the first write.
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });

  const scanner = new ChatStreamScanner(options.clientWantsUsage);
  let ttftMs: number | null = null;
  let broken = false;
  // A slow client pauses the upstream until its socket drains (no timer, no buffering without bound).
  const onDrain = () => upstream.resume();
  res.on('drain', onDrain);
  try {
    await upstream.relay((chunk) => {
      const out = scanner.push(chunk);
      if (!out) return true;
      ttftMs ??= meter.elapsedMs();
      return res.write(out);
    });
    const tail = scanner.flush();
    if (tail && !options.clientGone()) res.write(tail);
  } catch {
    broken = true;
  } finally {
    res.off('drain', onDrain);
  }
  const clientGone = options.clientGone();

  const complete = scanner.done && !scanner.upstreamError && !broken && !clientGone;
  const usage = scanner.usage ?? {
    inputTokens: estimateTokensFromBytes(options.promptBytes),
    outputTokens: scanner.events,
    cachedTokens: 0,
  };
  const errorCode = complete ? null : clientGone ? 'client_closed' : scanner.upstreamError ? 'upstream_error' : 'upstream_stream_interrupted';
  await meter.finish({
    statusCode: clientGone ? 499 : 200,
    errorCode,
    provider: routed.upstream.provider.id,
    usage,
    usageEstimated: scanner.usage === undefined,
    stream: true,
    ttftMs,
  });
  if (clientGone) return;
  if (complete) res.end(DONE);
  else if (scanner.upstreamError) res.end(errorEvent('upstream_error', 'the upstream provider failed during the stream'));
  else res.end(errorEvent('upstream_stream_interrupted', 'the upstream provider ended the stream before it was complete'));
}
