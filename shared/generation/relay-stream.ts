import { streamUsage } from '../billing/estimate.js';
import type { CatalogModel } from '../catalog/index.js';
import type { RoutedResponse } from '../routing/fallback.js';
import type { CallMeter } from './call-meter.js';
import { scannerFor } from './stream-scanners.js';
import type { TextCall } from './text-call.js';
import type { TextSink } from './text-sink.js';

/**
 * Relays SSE events to the sink as they arrive, for every surface (the scanner of the route's
 * passage decides what the client gets). Once the stream is open no error can be answered any more,
 * so the relay owns the ending. When the upstream's terminal event (`[DONE]`, `message_stop`, the
 * frame with `finishReason`) arrives the call is settled, and the end marker goes out once the
 * settlement is written to Redis (not yet applied): a process killed after its client has a
 * complete stream still has the call charged, and the ending waits for no round trip. Events that
 * came in the same turn as the end marker go out with it in one write, unless they are the
 * stream's first (those never wait). A stream the upstream cut ends with an error event, never with
 * an end marker that would make it look complete. A client that hangs up aborts the upstream request.
 * Resolves with the usage of a complete stream (the response cache stores only those), else undefined.
 */
export async function relayStream(
  call: TextCall,
  meter: CallMeter,
  routed: RoutedResponse,
  model: CatalogModel,
  sink: TextSink,
): Promise<StreamUsage | undefined> {
  const upstream = routed.response;
  const state = call.state;
  const scanner = scannerFor(call.passage!, model.id, call.parsed.clientWantsUsage, call.transcript, call.promptTokens);
  // A slow client pauses the upstream until it drains (no timer, no buffering without bound).
  sink.open(() => upstream.resume());
  let ttftMs: number | null = null;
  let counted: StreamUsage | undefined;
  const settle = (errorCode: string | null): Promise<number> => {
    // An early end is charged at least what was relayed: message_start's output_tokens is no count.
    counted = streamUsage(scanner, call.bodyBytes);
    const { usage, estimated } = counted;
    return meter.finish({
      statusCode: errorCode === 'client_closed' ? 499 : 200,
      errorCode,
      provider: routed.upstream.provider.id,
      upstreamModel: routed.upstreamModel,
      account: routed.account,
      usage,
      usageEstimated: estimated,
      stream: true,
      ttftMs,
    });
  };
  const complete = () => scanner.done && !scanner.upstreamError && !state.clientGone;
  let settled: Promise<number> | undefined;
  let ended: Promise<void> | undefined;
  // True once the first events have left (Node sends a turn's writes at the next tick).
  let firstSent = false;
  const endComplete = (last: Buffer | undefined) => {
    if (last) sink.chunk(last);
    // What this turn wrote waits for the end marker, so the two leave in one write. Never the first
    // events: a stream that arrived whole in one turn sends them at once, and the end marker after.
    if (firstSent) sink.hold();
    settled = settle(null);
    const written = sink.beforeEnd
      ? meter
          .sent()
          .then(() => sink.beforeEnd!())
          .catch(() => undefined)
      : meter.sent();
    ended = written.then(() => sink.end(scanner.endMarker()));
  };
  try {
    await upstream.relay((chunk) => {
      // After the end marker the upstream has nothing left to say; what trails it is drained unread.
      if (settled) return true;
      const out = scanner.push(chunk);
      if (out && ttftMs === null) {
        ttftMs = meter.elapsedMs();
        process.nextTick(() => (firstSent = true));
      }
      if (complete()) {
        endComplete(out);
        return true;
      }
      return out ? sink.chunk(out) : true;
    });
    // An event the upstream left without its blank line (the end marker, at times).
    const tail = settled ? undefined : scanner.flush();
    if (tail) ttftMs ??= meter.elapsedMs();
    if (!settled && complete()) endComplete(tail);
    else if (tail && !state.clientGone) sink.chunk(tail);
  } catch {
    // The upstream connection broke: the stream ends as interrupted below (unless it was complete).
  }
  // The client has (or is being sent) a complete stream; a connection that broke after it changes nothing.
  if (settled) {
    await ended;
    await settled;
    return counted;
  }
  const clientGone = state.clientGone;
  await settle(clientGone ? 'client_closed' : scanner.upstreamError ? 'upstream_error' : 'upstream_stream_interrupted');
  if (clientGone) return undefined;
  const [code, message] = scanner.upstreamError
    ? ['upstream_error', 'the upstream provider failed during the stream']
    : ['upstream_stream_interrupted', 'the upstream provider ended the stream before it was complete'];
  sink.interrupt(code, message, scanner.errorEvent?.(code, message));
  return undefined;
}

/** What a complete stream was charged for (relayStream's answer; undefined for a cut one). */
export type StreamUsage = ReturnType<typeof streamUsage>;
