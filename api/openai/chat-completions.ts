import type { Middleware } from 'koa';
import { estimateTokensFromBytes } from '../../shared/billing/estimate.js';
import { tokenCost } from '../../shared/billing/pricing.js';
import { isGatewayError } from '../../shared/errors.js';
import { CallMeter } from '../../shared/gateway/call-meter.js';
import { authorizeModel, discountOf } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { chatRequestSchema, maxOutputTokens } from '../../shared/protocols/openai/chat-request.js';
import { sendChatCompletion } from '../../shared/providers/openai/chat.js';
import { sendWithFallback } from '../../shared/routing/fallback.js';
import { callTags } from '../../shared/usage/tags.js';
import { parseOrThrow } from '../../shared/validation.js';
import { readJsonObject } from '../middleware/read-json.js';
import { answerChatJson } from './chat-json.js';
import { relayChatStream } from './chat-stream.js';
import { authenticateRequest } from './credential.js';
import { passUpstreamError } from './upstream-error.js';

/** POST /v1/chat/completions */
export function chatCompletions(services: GatewayServices): Middleware {
  const limit = services.config.http.bodyLimitBytes;
  return async (ctx) => {
    const key = await authenticateRequest(ctx, services);
    const tags = callTags(ctx.get('x-service-tags') || undefined, key.tags);
    const meter = new CallMeter(services, key, 'chat/completions', ctx.state.requestId, ctx.state.callId, tags);
    // A client that goes away at any point aborts the upstream request (and with it the relay).
    const abort = new AbortController();
    const onClose = () => {
      if (!ctx.res.writableEnded) abort.abort();
    };
    ctx.res.once('close', onClose);
    try {
      const body = await readJsonObject(ctx, limit);
      const req = parseOrThrow(chatRequestSchema, body.value);
      const model = authorizeModel(services, key, req.model, 'chat/completions');
      const maxOutput = maxOutputTokens(req, model.max_output_tokens);
      // The byte count bounds the prompt's tokens for money; TPM takes the usual 4-bytes estimate.
      const maxCost = tokenCost(model, { inputTokens: body.bytes, outputTokens: maxOutput, cachedTokens: 0 }, discountOf(services, key));
      ctx.set(await meter.admit(model, maxCost, estimateTokensFromBytes(body.bytes) + maxOutput));

      const stream = req.stream === true;
      const routed = await sendWithFallback(services.upstreams, model, abort.signal, (attempt) =>
        sendChatCompletion({ ...attempt, body: body.value, stream, signal: abort.signal }),
      );
      ctx.set('X-Service-Model', model.id);
      if (routed.response.statusCode !== 200) return await passUpstreamError(routed);
      if (stream) {
        const clientWantsUsage = req.stream_options?.include_usage === true;
        await relayChatStream(ctx, meter, routed, { promptBytes: body.bytes, clientWantsUsage, abort });
      } else {
        await answerChatJson(ctx, meter, routed, body.bytes);
      }
    } catch (err) {
      if (abort.signal.aborted) {
        // Nothing was relayed, so nothing is charged; the record says who ended the call.
        await meter.finish({ statusCode: 499, errorCode: 'client_closed' });
        return;
      }
      await meter.finish({ statusCode: isGatewayError(err) ? err.status : 500, errorCode: isGatewayError(err) ? err.code : 'internal_error' });
      throw err;
    } finally {
      ctx.res.off('close', onClose);
      await meter.close();
    }
  };
}
