import type { Middleware } from 'koa';
import { z } from 'zod';
import { finalizeCost, isExplicitlyFree } from '../../shared/billing/pricing.js';
import { QUOTABLE, payloadModel, scaledQuote } from '../../shared/billing/quote.js';
import { authenticate, authorizeModel, discountOf } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { parseOrThrow } from '../../shared/validation.js';
import { readJsonObject } from '../middleware/read-json.js';
import { bearerCredential } from '../openai/credential.js';

const estimateSchema = z.strictObject({
  endpoint: z.enum(QUOTABLE),
  payload: z.record(z.string(), z.unknown(), { error: 'required object: the request body of that endpoint' }),
});

/**
 * POST /v1/estimates: what a call would cost this key, with its effective discount. Runs the key,
 * expiry, IP and model checks; calls no upstream, reserves nothing and enforces no budget.
 */
export function createEstimate(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticate(services, bearerCredential(ctx));
    const body = await readJsonObject(ctx, services.config.http.bodyLimitBytes);
    const { endpoint, payload } = parseOrThrow(estimateSchema, body.value);
    const model = authorizeModel(services, key, payloadModel(endpoint, payload), endpoint);
    const estimated = finalizeCost(scaledQuote(endpoint, model, payload), discountOf(services, key));
    ctx.body = { estimated_micro_usd: estimated, is_free: isExplicitlyFree(model) };
  };
}
