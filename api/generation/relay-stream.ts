import type { ServerResponse } from 'node:http';
import { streamUsage } from '../../shared/billing/estimate.js';
import type { CallMeter } from '../../shared/gateway/call-meter.js';
import type { StreamScanner } from '../../shared/providers/stream-scanner.js';
import type { RoutedResponse } from '../../shared/routing/fallback.js';

export interface RelayOptions {
  promptBytes: number;
  /** Reads the upstream's stream: passes it through, or translates it for the client's protocol. */
  scanner: StreamScanner;
  /** The event the client's protocol ends a failed stream with. */
  errorEvent: (code: string, message: string) => string;
  /** True once the client went away (the handler aborts the upstream request then). */
  clientGone: () => boolean;
  /** Sees every relayed chunk (content logging); absent on the common path. */
  capture?: ((chunk: Buffer) => void) | undefined;
  /** Runs before the end marker of a complete stream goes out (the private protocol stores the result first). */
  beforeEnd?: (() => Promise<void>) | undefined;
}

/**
 * Relays SSE events as they arrive, for every surface (the scanner decides what the client gets).
 * Once headers are sent no error can be answered any more, so the relay owns the ending. When the
 * upstream's terminal event (`[DONE]`, `message_stop`, the frame with `finishReason`) arrives the call is settled, and the end marker
 * goes out once the settlement is written to Redis (not yet applied): a process killed after its
 * client has a complete stream still has the call charged, and the ending waits for no round trip.
 * Events that came in the same turn as the end marker go out with it in one write, unless they are
 * the stream's first (those never wait). A stream the upstream cut ends with an error event, never with
 * a `[DONE]` that would make it look complete. A client that hangs up aborts the upstream request.
 */
export async function relayStream(
  res: ServerResponse,
  meter: CallMeter,
  routed: RoutedResponse,
  options: RelayOptions,
): Promise<void> {
  const upstream = routed.response;
  // Headers go out with the first event (one write, not two); Node sends them on the first write.
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });

  const scanner = options.scanner;
  let ttftMs: number | null = null;
  const settle = (errorCode: string | null): Promise<number> => {
    // An early end is charged at least what was relayed: message_start's output_tokens is no count.
    const { usage, estimated } = streamUsage(scanner, options.promptBytes);
    return meter.finish({
      statusCode: errorCode === 'client_closed' ? 499 : 200,
      errorCode,
      provider: routed.upstream.provider.id,
      account: routed.account,
      usage,
      usageEstimated: estimated,
      stream: true,
      ttftMs,
    });
  };
  const complete = () => scanner.done && !scanner.upstreamError && !options.clientGone();
  // A slow client pauses the upstream until its socket drains (no timer, no buffering without bound).
  const onDrain = () => upstream.resume();
  res.on('drain', onDrain);
  let settled: Promise<number> | undefined;
  let ended: Promise<void> | undefined;
  // True once the first events have left (Node sends a turn's writes at the next tick).
  let firstSent = false;
  const endComplete = (last: Buffer | undefined) => {
    if (last) res.write(last);
    // What this turn wrote waits for the end marker, so the two leave in one socket write (Node
    // corks a response's writes only until the next tick; corks nest). Never the first events: a
    // stream that arrived whole in one turn sends them at once, and the end marker after.
    const socket = firstSent ? res.socket : null;
    socket?.cork();
    settled = settle(null);
    const written = options.beforeEnd
      ? meter
          .sent()
          .then(options.beforeEnd)
          .catch(() => undefined)
      : meter.sent();
    ended = written.then(() => {
      try {
        res.end(scanner.endMarker());
      } finally {
        socket?.uncork();
      }
    });
  };
  try {
    await upstream.relay((chunk) => {
      // After the end marker the upstream has nothing left to say; what trails it is drained unread.
      if (settled) return true;
      const out = scanner.push(chunk);
      if (out && options.capture) options.capture(out);
      if (out && ttftMs === null) {
        ttftMs = meter.elapsedMs();
        process.nextTick(() => (firstSent = true));
      }
      if (complete()) {
        endComplete(out);
        return true;
      }
      return out ? res.write(out) : true;
    });
    // An event the upstream left without its blank line (the end marker, at times).
    const tail = settled ? undefined : scanner.flush();
    if (tail) ttftMs ??= meter.elapsedMs();
    if (!settled && complete()) endComplete(tail);
    else if (tail && !options.clientGone()) res.write(tail);
  } catch {
    // The upstream connection broke: the stream ends as interrupted below (unless it was complete).
  } finally {
    res.off('drain', onDrain);
  }
  // The client has (or is being sent) a complete stream; a connection that broke after it changes nothing.
  if (settled) {
    await ended;
    await settled;
    return;
  }
  const clientGone = options.clientGone();
  await settle(clientGone ? 'client_closed' : scanner.upstreamError ? 'upstream_error' : 'upstream_stream_interrupted');
  if (clientGone) return;
  const [code, message] = scanner.upstreamError
    ? ['upstream_error', 'the upstream provider failed during the stream']
    : ['upstream_stream_interrupted', 'the upstream provider ended the stream before it was complete'];
  res.end(scanner.errorEvent?.(code, message) ?? options.errorEvent(code, message));
}
