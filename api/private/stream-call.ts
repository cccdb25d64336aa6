import type { Context } from 'koa';
import { advancePrivateCall } from '../../shared/db/private-calls.js';
import { isGatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import type { PrivateCallRequest } from '../../shared/private/call-request.js';
import { publishCallEnded } from '../../shared/private/call-waiter.js';
import { SseSplitter } from '../../shared/protocols/canonical/sse.js';
import type { CanonicalPart, StopReason } from '../../shared/protocols/canonical/types.js';
import { openAiResponseFromCanonical } from '../../shared/protocols/openai/from-canonical.js';
import { OpenAiStreamDecoder } from '../../shared/protocols/openai/stream-codec.js';
import { serveGeneration } from '../generation/handler.js';
import { exchangeFromKoa } from '../http/exchange.js';
import { chatCompletionsSurface } from '../openai/chat-surface.js';
import { sendSuccess } from './envelope.js';
import { acceptChatCall, viewOf } from './calls.js';

/**
 * `stream: true` under `standard_v1`: a real SSE stream (the chat-completions events), relayed as it
 * arrives by the same path as `/v1/chat/completions`; the completion it carried is kept on the call
 * for `getResult`. A replayed `clientRequestId` answers the call's state (JSON), not a second stream.
 */
export async function streamPrivateChat(
  services: GatewayServices,
  ctx: Context,
  key: ApiKeyContext,
  req: PrivateCallRequest,
  body: Record<string, unknown>,
  hash: Buffer,
): Promise<void> {
  const { call, replayed } = await acceptChatCall(services, ctx, key, req, body, hash, { status: 'running' });
  if (replayed) return sendSuccess(ctx, key.profile, viewOf(services, ctx, { kind: 'chat', call }));
  const raw = Buffer.from(JSON.stringify(body));
  const collected = new StreamCollector();
  let failure: { code: string; message: string; status: number } | undefined;
  let stored = false;
  await serveGeneration(
    services,
    chatCompletionsSurface,
    exchangeFromKoa(ctx),
    key,
    { value: body, raw, bytes: raw.length },
    {},
    {
      surfaceId: 'private',
      capture: (chunk) => collected.push(chunk),
      onFailure: (err) => {
        failure = isGatewayError(err)
          ? { code: err.code, message: err.message, status: err.status }
          : { code: 'internal_error', message: 'internal error', status: 500 };
      },
      // The result is kept before the client sees the stream end: a getResult right after finds it.
      beforeStreamEnd: async () => {
        const result = collected.result(String(body.model));
        if (result)
          stored = await advancePrivateCall(services.db, call.id, ['running'], {
            status: 'succeeded',
            result,
            finishedAt: new Date(services.clock.now()),
          });
      },
    },
  );
  if (!stored) {
    const error = failure ?? {
      code: 'upstream_stream_interrupted',
      message: 'the stream ended before it was complete',
      status: 502,
    };
    await advancePrivateCall(services.db, call.id, ['running'], {
      status: 'failed',
      error,
      finishedAt: new Date(services.clock.now()),
    });
  }
  await publishCallEnded(services.redis, services.redisKeys.callEnded, call.id).catch(() => undefined);
}

/** Reads the relayed chat-completions events back into the completion they carried. */
class StreamCollector {
  private readonly splitter = new SseSplitter();
  private readonly decoder = new OpenAiStreamDecoder();
  private text = '';
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();
  private stop: StopReason | undefined;
  private id = '';

  push(chunk: Buffer): void {
    for (const frame of this.splitter.push(chunk)) {
      for (const event of this.decoder.frame(frame)) {
        if (event.type === 'start') this.id = event.id;
        else if (event.type === 'text') this.text += event.text;
        else if (event.type === 'tool_call_start')
          this.calls.set(event.index, { id: event.id, name: event.name, args: '' });
        else if (event.type === 'tool_call_args') {
          const call = this.calls.get(event.index);
          if (call) call.args += event.fragment;
        } else if (event.type === 'finish') this.stop = event.stopReason;
      }
    }
  }

  /** The completion, once the stream said how it finished; undefined for a stream cut short. */
  result(model: string): unknown {
    if (this.stop === undefined) return undefined;
    const parts: CanonicalPart[] = [];
    if (this.text) parts.push({ type: 'text', text: this.text });
    for (const call of this.calls.values())
      parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.args });
    return openAiResponseFromCanonical({ id: this.id, model, parts, stopReason: this.stop, usage: undefined }, model);
  }
}
