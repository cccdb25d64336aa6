import { promptTokenBound } from '../billing/prompt-tokens.js';
import { advancePrivateCall, claimPrivateCall } from '../db/private-calls.js';
import { isGatewayError } from '../errors.js';
import { CallMeter } from '../gateway/call-meter.js';
import { routeGeneration } from '../gateway/route-generation.js';
import type { GatewayServices } from '../gateway/services.js';
import { GenerationRequest } from '../providers/generation-request.js';
import { jsonAnswer } from '../providers/json-answer.js';
import { chatRequestSchema, maxOutputTokens } from '../protocols/openai/chat-request.js';
import { planModels } from '../routing/plan.js';
import { parseOrThrow } from '../validation.js';
import { publishCallEnded } from './call-waiter.js';

export interface PrivateChatJob {
  callId: string;
  keyId?: string | undefined;
  requestId?: string | undefined;
  request?: Record<string, unknown> | undefined;
}

/**
 * The `private-chat` job: runs a private-protocol chat call the way `/v1/chat/completions` runs it
 * (steps 4-6, routing, fallback, the upstream, the charge: shared/gateway/route-generation.ts),
 * keeps the completion (or the failure) on the call, and announces the end with the outcome in the
 * message (the waiting API reads nothing more). The job carries the call's body and key, so
 * nothing is read before the upstream call; a re-drive (the maintenance sweep) carries only the id
 * and reads the call. A call that already ended is left as it is; a job run again after a crash
 * calls the upstream again but charges once (the usage record and its charge are unique by the
 * call's id).
 */
export async function runPrivateChat(services: GatewayServices, job: PrivateChatJob): Promise<string> {
  const callId = job.callId;
  let data =
    job.keyId && job.requestId && job.request
      ? { keyId: job.keyId, requestId: job.requestId, request: job.request }
      : undefined;
  if (!data) {
    const call = await claimPrivateCall(services.db, callId);
    if (!call) return 'nothing to do';
    if (!call.api_key_id)
      return fail(services, callId, undefined, {
        code: 'invalid_api_key',
        message: 'the key of this call no longer exists',
        status: 401,
      });
    data = { keyId: call.api_key_id, requestId: call.request_id, request: call.request };
  }
  const key = await services.keyCache.lookupById(data.keyId);
  // A key revoked or disabled since the call was accepted does not run it.
  if (!key || key.status === 'revoked')
    return fail(services, callId, undefined, {
      code: 'invalid_api_key',
      message: 'the key of this call no longer exists',
      status: 401,
    });
  if (key.status === 'disabled')
    return fail(services, callId, undefined, {
      code: 'key_disabled',
      message: 'this API key is disabled',
      status: 403,
    });
  const { requestId } = data;
  let meter = new CallMeter(services, key, 'chat/completions', requestId, callId, [...key.tags]);
  meter.surface = 'private';
  try {
    const body = data.request;
    const chat = parseOrThrow(chatRequestSchema, body);
    const bytes = Buffer.byteLength(JSON.stringify(body));
    const plan = await planModels(services.routing, key, chat.model, 'chat/completions');
    const request = new GenerationRequest('openai', body, undefined, false, undefined);
    const attempts = {
      key,
      plan,
      request,
      maxTokens: maxOutputTokens(chat, 0) || undefined,
      promptTokens: (model: Parameters<typeof promptTokenBound>[1]) => promptTokenBound(chat, model, bytes),
      meter,
      nextMeter: (attempt: number) => {
        const next = new CallMeter(
          services,
          key,
          'chat/completions',
          `${requestId}-fb${attempt}`,
          `${callId}-fb${attempt}`,
          [...key.tags],
        );
        next.surface = 'private';
        return next;
      },
      state: { upstream: undefined, clientGone: false },
      images: services.config.imageFetch,
    };
    let routed;
    let model;
    try {
      ({ routed, model } = await routeGeneration(services, attempts));
    } finally {
      meter = attempts.meter;
    }
    const answer = jsonAnswer(routed, 'openai', bytes, model.id);
    await meter.finish({
      statusCode: 200,
      provider: routed.upstream.provider.id,
      account: routed.account,
      usage: answer.usage,
      usageEstimated: answer.estimated,
      ttftMs: meter.elapsedMs(),
    });
    await meter.sent();
    const ended = { status: 'succeeded' as const, result: answer.parsed };
    if (
      await advancePrivateCall(services.db, callId, ['queued', 'running'], {
        status: ended.status,
        result: ended.result,
        finishedAt: new Date(services.clock.now()),
      })
    ) {
      await publishCallEnded(services.redis, services.redisKeys.callEnded, callId, ended).catch(() => undefined);
    }
    return 'succeeded';
  } catch (err) {
    if (!isGatewayError(err)) throw err; // Postgres or Redis away: the job runs again
    return fail(services, callId, meter, { code: err.code, message: err.message, status: err.status });
  } finally {
    await meter.close();
  }
}

async function fail(
  services: GatewayServices,
  callId: string,
  meter: CallMeter | undefined,
  error: { code: string; message: string; status: number },
): Promise<string> {
  await meter?.finish({ statusCode: error.status, errorCode: error.code });
  if (
    await advancePrivateCall(services.db, callId, ['queued', 'running'], {
      status: 'failed',
      error,
      finishedAt: new Date(services.clock.now()),
    })
  ) {
    await publishCallEnded(services.redis, services.redisKeys.callEnded, callId, { status: 'failed', error }).catch(
      () => undefined,
    );
  }
  return 'failed';
}
