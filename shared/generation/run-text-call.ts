import { logContent } from '../datasets/content-log.js';
import { isGatewayError } from '../errors.js';
import type { GatewayServices } from '../gateway/services.js';
import { jsonAnswer } from './json-answer.js';
import { checkInlineImages } from '../assets/inline-images.js';
import { inlineAssetImages } from '../assets/text-call-assets.js';
import { parseTextBody, planTextCall, setTextBody, templateFor, type TextInput } from './read-text-call.js';
import { relayStream } from './relay-stream.js';
import {
  answerFromCache,
  fillFromAnswer,
  fillFromStream,
  lookupTextCache,
  type TextCacheState,
} from './cached-text.js';
import { routeTextCall } from './route-text-call.js';
import type { TextCall } from './text-call.js';
import type { TextSink } from './text-sink.js';
import { Transcript } from './transcript.js';

/**
 * Runs a text call whose key is authenticated (steps 1-3) to its end: its body read (`input`, for a
 * call not read yet), the route loop (steps 4-6, routing, fallback, the upstream:
 * routeTextCall), then the answer to `sink` — relayed as it streams (relayStream) or whole — with
 * its charge, and the content log when the account keeps one. A failure is recorded and handed to
 * the sink (recordFailure); never rejects (except with a failure the sink `retries`).
 * The hottest path of the gateway: it waits only where it must (the admission, the upstream, the
 * settlement), and builds no object as `{ ...a, b }` (docs/decisions/0001-hot-path-on-node-http.md).
 */
export async function runTextCall(
  services: GatewayServices,
  call: TextCall,
  sink: TextSink,
  input?: TextInput,
): Promise<void> {
  try {
    if (input) {
      // The body read once: its schema, step 4, the key's prompt template (read-text-call.ts).
      const parsed = parseTextBody(call, input);
      call.plan = await planTextCall(services, call.key, parsed);
      const template = await templateFor(services, call, parsed, input);
      call.templateVersionId = template?.versionId ?? null;
      setTextBody(call, parsed, input.body.raw, input.body.bytes, input.forwarded, template?.text);
      // Inline images are checked like uploads before anything is reserved (most calls carry none).
      await checkInlineImages(call.request.body, input.body.raw);
    }
    // `asset://` images go upstream inline, within the key's asset scope (most calls reference none).
    const withAssets = await inlineAssetImages(services, call.key, call.request.body, call.request.raw);
    if (withAssets) call.request.replaceBody(withAssets);
    // The response cache, for a call read over HTTP, once everything that validates it has passed.
    let cache: TextCacheState | undefined;
    if (input) {
      cache = await lookupTextCache(services, call, sink, input.cacheTtl);
      if (cache.hit) return await answerFromCache(services, call, sink, cache.hit);
    }
    const { routed, model, meter } = await routeTextCall(services, call, sink);
    const logging = call.key.owner.logContent;
    const filling = cache?.digest !== undefined;
    let answered: unknown;
    if (call.parsed.stream) {
      services.routing.latency.record(model.id, meter.elapsedMs());
      // The transcript is what a cache fill stores: made only when the call logs or fills.
      if (logging || filling) call.transcript ??= new Transcript();
      const complete = await relayStream(call, meter, routed, model, sink);
      answered = logging ? call.transcript!.logged() : undefined;
      if (filling && complete) await fillFromStream(services, call, cache!, model, complete);
    } else {
      // The answer goes out once its settlement is written to Redis, without waiting for the reply
      // (docs/decisions/0003-settlement-before-the-answer.md).
      const answer = jsonAnswer(routed, call.passage!, call.bodyBytes, model.id);
      const settled = meter.finish({
        statusCode: 200,
        provider: routed.upstream.provider.id,
        upstreamModel: routed.upstreamModel,
        account: routed.account,
        usage: answer.usage,
        usageEstimated: answer.estimated,
        ttftMs: meter.elapsedMs(),
      });
      await meter.sent();
      const delivered = sink.answer(answer);
      if (delivered) await delivered;
      answered = answer.parsed;
      await settled;
      if (filling) await fillFromAnswer(services, call, cache!, model, call.passage!, answer);
    }
    // Content logging (account settings): prompt and completion kept in object storage, after the answer.
    if (logging)
      logContent(services.storage, call.key.userId, meter.requestId, call.request.body, answered, (err) =>
        services.log.warn({ err: err.message }, 'content log not written'),
      );
  } catch (err) {
    await recordFailure(call, sink, err);
  } finally {
    await call.meter.close();
  }
}

/**
 * A call that failed before its answer: recorded on the attempt that ran last and handed to the
 * sink to answer or keep. A failure the sink `retries` is thrown instead, unrecorded.
 */
export async function recordFailure(call: TextCall, sink: TextSink, err: unknown): Promise<void> {
  const meter = call.meter;
  if (call.state.clientGone) {
    // Nothing was relayed, so nothing is charged; the record says who ended the call.
    await meter.finish({ statusCode: 499, errorCode: 'client_closed' });
    return;
  }
  if (sink.retries?.(err)) throw err;
  await meter.finish({
    statusCode: isGatewayError(err) ? err.status : 500,
    errorCode: isGatewayError(err) ? err.code : 'internal_error',
  });
  await sink.fail(err);
}
