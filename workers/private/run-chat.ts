import { advancePrivateCall, claimPrivateCall } from '../../shared/db/private-calls.js';
import { isGatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { JsonAnswer } from '../../shared/generation/json-answer.js';
import { planTextCall, setTextBody } from '../../shared/generation/read-text-call.js';
import { recordFailure, runTextCall } from '../../shared/generation/run-text-call.js';
import { chatCompletionsCall, chatCompletionsText } from '../../shared/generation/surfaces/chat-completions.js';
import { TextCall } from '../../shared/generation/text-call.js';
import type { TextSink } from '../../shared/generation/text-sink.js';
import type { ChatRequest } from '../../shared/protocols/openai/chat-request.js';
import { callErrorOf, storedError, type CallError } from '../../shared/private/call-error.js';
import { publishCallEnded, type CallEnded } from '../../shared/private/call-waiter.js';
import { planOfJob, type PrivateChatJob } from '../../shared/private/chat-job.js';

const keyGone: CallError = { code: 'invalid_api_key', message: 'the key of this call no longer exists', status: 401 };

/**
 * The `private-chat` job: runs a private-protocol chat call through the text engine as
 * `/v1/chat/completions` runs it (shared/generation/run-text-call.ts), with a sink that keeps the
 * completion (or the failure) on the call and announces the end with the outcome in the message
 * (the waiting API reads nothing more). The call is claimed first (the claim reads its body: stored
 * once, validated once, by the API); step 4's plan comes with the job, so neither is done again. A
 * call that already ended is left as it is; a job run again after a crash calls the upstream again
 * but charges once (the usage record and its charge are unique by the call's id).
 */
export async function runPrivateChat(services: GatewayServices, job: PrivateChatJob): Promise<string> {
  const row = await claimPrivateCall(services.db, job.callId);
  if (!row) return 'nothing to do';
  const sink = new StoredResultSink(services, row.id);
  const key = row.api_key_id ? await services.keyCache.lookupById(row.api_key_id) : null;
  // A key revoked or disabled since the call was accepted does not run it.
  if (!key || key.status === 'revoked') return sink.keep('failed', { error: keyGone });
  if (key.status === 'disabled')
    return sink.keep('failed', { error: { code: 'key_disabled', message: 'this API key is disabled', status: 403 } });
  // The tags fixed when the call was accepted (the request's X-Service-Tags with the key's).
  const tags = row.tags ?? [...key.tags];
  const call = new TextCall(services, key, chatCompletionsText, 'private', row.request_id, row.id, tags, null);
  try {
    const parsed = chatCompletionsCall(row.request as ChatRequest);
    call.plan = job.models
      ? planOfJob(services.catalog, job.models, job.preferences)
      : await planTextCall(services, key, parsed);
    setTextBody(
      call,
      parsed,
      undefined,
      job.bytes ?? Buffer.byteLength(JSON.stringify(row.request)),
      undefined,
      undefined,
    );
  } catch (err) {
    await recordFailure(call, sink, err);
    return sink.outcome;
  }
  await runTextCall(services, call, sink);
  return sink.outcome;
}

/** Keeps a private chat call's whole answer, or its failure, on the call; the API waiting for it hears of the end. */
class StoredResultSink implements TextSink {
  outcome = 'failed';

  constructor(
    private readonly services: GatewayServices,
    private readonly callId: string,
  ) {}

  limitHeaders(): void {}
  model(): void {}

  async answer(answer: JsonAnswer): Promise<void> {
    await this.keep('succeeded', { result: answer.parsed });
  }

  async fail(err: unknown): Promise<void> {
    if (!isGatewayError(err)) throw err;
    await this.keep('failed', { error: callErrorOf(err) });
  }

  /** Postgres or Redis away: the job runs again (nothing recorded now, so the retry's record is the call's). */
  retries(err: unknown): boolean {
    return !isGatewayError(err);
  }

  /** Moves the call to its end (once: a call that already ended is left as it is) and announces it. */
  async keep(status: 'succeeded' | 'failed', outcome: { result?: unknown; error?: CallError }): Promise<string> {
    this.outcome = status;
    const ended: CallEnded = Object.assign({ status }, outcome);
    const moved = await advancePrivateCall(this.services.db, this.callId, ['queued', 'running'], {
      status,
      result: outcome.result,
      error: outcome.error && storedError(outcome.error),
      finishedAt: new Date(this.services.clock.now()),
    });
    if (moved)
      await publishCallEnded(this.services.redis, this.services.redisKeys.callEnded, this.callId, ended).catch(
        () => undefined,
      );
    return status;
  }

  // A private chat job answers whole: the API streams standard_v1 calls itself.
  open(): void {
    throw new Error('a private chat job is never streamed');
  }
  chunk(): boolean {
    throw new Error('a private chat job is never streamed');
  }
  hold(): void {}
  end(): void {}
  interrupt(): void {}
}
