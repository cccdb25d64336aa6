import type { Context } from 'koa';
import { advancePrivateCall } from '../../shared/db/private-calls.js';
import { isGatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { setTextBody } from '../../shared/generation/read-text-call.js';
import { runTextCall } from '../../shared/generation/run-text-call.js';
import { chatCompletionsText } from '../../shared/generation/surfaces/chat-completions.js';
import { TextCall } from '../../shared/generation/text-call.js';
import { Transcript } from '../../shared/generation/transcript.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import type { PrivateCallRequest } from '../../shared/private/call-request.js';
import { callErrorOf, storedError, type CallError } from '../../shared/private/call-error.js';
import { publishCallEnded } from '../../shared/private/call-waiter.js';
import { openAiResponseFromCanonical } from '../../shared/protocols/openai/from-canonical.js';
import { RelaySink } from '../generation/relay-sink.js';
import { answerFailure } from '../http/answer-failure.js';
import { exchangeFromKoa, type Exchange } from '../http/exchange.js';
import { sendSuccess } from './envelope.js';
import { acceptChatCall, viewOf } from './calls.js';
import type { PrivateChat } from './chat-call.js';

/**
 * `stream: true` under `standard_v1`: a real SSE stream (the chat-completions events), relayed as it
 * arrives by the engine that serves `/v1/chat/completions`, run here in the API (not as a job); the
 * completion it carried — read from the transcript of the upstream's events, not decoded again
 * from the relayed stream — is kept on the call for `getResult`. A call refused before its first
 * byte (steps 5-6) answers in the private envelope, as every other private answer does. A replayed
 * `clientRequestId` answers the call's state (JSON), not a second stream.
 */
export async function streamPrivateChat(
  services: GatewayServices,
  ctx: Context,
  key: ApiKeyContext,
  req: PrivateCallRequest,
  chat: PrivateChat,
  identity: { hash: Buffer; tags: string[] },
): Promise<void> {
  const { call: row, replayed } = await acceptChatCall(services, ctx, key, req, chat, identity, { status: 'running' });
  if (replayed) return sendSuccess(ctx, key.profile, viewOf(services, ctx, { kind: 'chat', call: row }));
  const ex = exchangeFromKoa(ctx);
  const call = new TextCall(
    services,
    key,
    chatCompletionsText,
    'private',
    ex.requestId,
    ex.callId,
    identity.tags,
    null,
  );
  call.plan = chat.plan;
  setTextBody(call, chat.parsed, undefined, chat.bytes, undefined, undefined);
  call.transcript = new Transcript();
  const sink = new PrivateStreamSink(services, ex, call, row.id);
  try {
    await runTextCall(services, call, sink);
  } finally {
    sink.release();
  }
  if (!sink.stored) {
    const error = sink.failure ?? {
      code: 'upstream_stream_interrupted',
      message: 'the stream ended before it was complete',
      status: 502,
    };
    await advancePrivateCall(services.db, row.id, ['running'], {
      status: 'failed',
      error,
      finishedAt: new Date(services.clock.now()),
    });
  }
  await publishCallEnded(services.redis, services.redisKeys.callEnded, row.id).catch(() => undefined);
}

/** The relay, keeping the completion on the call before the client sees the stream end (a getResult right after finds it). */
class PrivateStreamSink extends RelaySink {
  stored = false;
  failure: Omit<CallError, 'headers'> | undefined;

  constructor(
    services: GatewayServices,
    ex: Exchange,
    call: TextCall,
    private readonly callId: string,
  ) {
    super(services, ex, call);
  }

  async beforeEnd(): Promise<void> {
    const model = String(this.call.parsed.model);
    const response = this.call.transcript!.response(model);
    if (!response) return;
    this.stored = await advancePrivateCall(this.services.db, this.callId, ['running'], {
      status: 'succeeded',
      result: openAiResponseFromCanonical(response, model),
      finishedAt: new Date(this.services.clock.now()),
    });
  }

  /** Before the stream began: the private envelope (with the refusal's Retry-After and limits), not a chat-completions error. */
  override fail(err: unknown): Promise<void> {
    this.failure = isGatewayError(err)
      ? storedError(callErrorOf(err))
      : { code: 'internal_error', message: 'internal error', status: 500 };
    return answerFailure(this.services, this.ex, this.call.key, err, 'private');
  }
}
