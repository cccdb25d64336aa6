import { fetchInlineImage } from '../assets/inline-image.js';
import { promptTokenBound } from '../billing/prompt-tokens.js';
import { toKeyContext } from '../keys/api-key.js';
import { findKeyWithOwnerById } from '../db/api-keys.js';
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

/**
 * The `private-chat` job: runs a private-protocol chat call the way `/v1/chat/completions` runs it
 * (steps 4-6, routing, fallback, the upstream, the charge: shared/gateway/route-generation.ts),
 * keeps the completion (or the failure) on the call, and says the call ended. A call already ended
 * is left as it is; a job run again after a crash calls the upstream again, but charges once (the
 * usage record and its charge are unique by the call's id).
 */
export async function runPrivateChat(services: GatewayServices, callId: string): Promise<string> {
  const call = await claimPrivateCall(services.db, callId);
  if (!call) return 'nothing to do';
  const row = call.api_key_id ? await findKeyWithOwnerById(services.db, call.api_key_id) : undefined;
  let meter: CallMeter | undefined;
  try {
    if (!row) throw new Error('the key of this call no longer exists');
    const key = toKeyContext(row);
    meter = new CallMeter(services, key, 'chat/completions', call.request_id, call.id, [...key.tags]);
    meter.surface = 'private';
    const body = call.request;
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
        const next = new CallMeter(services, key, 'chat/completions', `${call.request_id}-fb${attempt}`, `${call.id}-fb${attempt}`, [...key.tags]);
        next.surface = 'private';
        return next;
      },
      state: { upstream: undefined, clientGone: false },
      fetchImage: fetchInlineImage,
    };
    let routed;
    let model;
    try {
      ({ routed, model } = await routeGeneration(services, attempts));
    } finally {
      meter = attempts.meter;
    }
    const answer = jsonAnswer(routed, 'openai', bytes, model.id);
    await meter.finish({ statusCode: 200, provider: routed.upstream.provider.id, account: routed.account, usage: answer.usage, usageEstimated: answer.estimated, ttftMs: meter.elapsedMs() });
    await meter.sent();
    await advancePrivateCall(services.db, callId, ['queued', 'running'], { status: 'succeeded', result: answer.parsed, finishedAt: new Date(services.clock.now()) });
  } catch (err) {
    if (!isGatewayError(err) && row) throw err; // Postgres or Redis away: the job runs again
    const error = isGatewayError(err) ? { code: err.code, message: err.message, status: err.status } : { code: 'invalid_api_key', message: 'the key of this call no longer exists', status: 401 };
    await meter?.finish({ statusCode: error.status, errorCode: error.code });
    await advancePrivateCall(services.db, callId, ['queued', 'running'], { status: 'failed', error, finishedAt: new Date(services.clock.now()) });
  } finally {
    await meter?.close();
  }
  await publishCallEnded(services.redis, services.redisKeys.callEnded, callId).catch(() => undefined);
  return 'ended';
}
