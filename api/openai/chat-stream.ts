import { once } from 'node:events';
import type { Context } from 'koa';
import { estimateTokensFromBytes } from '../../shared/billing/estimate.js';
import type { CallMeter } from '../../shared/gateway/call-meter.js';
import { ChatStreamScanner } from '../../shared/providers/openai/stream-scanner.js';
import type { RoutedResponse } from '../../shared/routing/fallback.js';

export interface RelayOptions {
  promptBytes: number;
  clientWantsUsage: boolean;
  /** Fired by the handler when the client goes away; aborts the upstream request. */
  abort: AbortController;
}

const DONE = 'data: [DONE]\n\n';

function errorEvent(code: string, message: string): string {
  return `data: ${JSON.stringify({ error: { message, type: 'api_error', param: null, code } })}\n\n`;
}

/**
 * Relays SSE events as they arrive. Once headers are sent Koa can no longer answer an error, so the
 * relay owns the ending: the call is settled before the final `[DONE]` (a completed response always
 * has its usage record queued), and a stream the upstream cut ends with an error event, never with
 * a `[DONE]` that would make it look complete. A client that hangs up aborts the upstream request.
 */
export async function relayChatStream(ctx: Context, meter: CallMeter, routed: RoutedResponse, options: RelayOptions): Promise<void> {
  const res = ctx.res;
  ctx.respond = false;
  // Headers go out with the first event (one write, not two); Node sends them on the first write.
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });

  const gone = options.abort.signal;
  const scanner = new ChatStreamScanner(options.clientWantsUsage);
  let ttftMs: number | null = null;
  let broken = false;
  try {
    if (gone.aborted) throw gone.reason;
    for await (const chunk of routed.response.body as AsyncIterable<Buffer>) {
      const out = scanner.push(chunk);
      if (!out) continue;
      ttftMs ??= meter.elapsedMs();
      if (!res.write(out)) await once(res, 'drain', { signal: gone });
    }
    const tail = scanner.flush();
    if (tail && !gone.aborted) res.write(tail);
  } catch {
    broken = true;
  }
  const clientGone = gone.aborted;

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
  if (clientGone) {
    routed.response.body.destroy();
    return;
  }
  if (complete) res.end(DONE);
  else if (scanner.upstreamError) res.end(errorEvent('upstream_error', 'the upstream provider failed during the stream'));
  else res.end(errorEvent('upstream_stream_interrupted', 'the upstream provider ended the stream before it was complete'));
}
