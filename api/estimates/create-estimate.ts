import type { Middleware } from 'koa';
import { z } from 'zod';
import { finalizeCost, isExplicitlyFree } from '../../shared/billing/pricing.js';
import { QUOTABLE, payloadModel, scaledQuote } from '../../shared/billing/quote.js';
import { authorizeModel, discountOf } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { parseOrThrow } from '../../shared/validation.js';
import { GatewayError, isGatewayError } from '../../shared/errors.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateAndCount } from '../openai/credential.js';

export const estimateSchema = z.strictObject({
  endpoint: z.enum(QUOTABLE),
  payload: z.record(z.string(), z.unknown(), { error: 'required object: the request body of that endpoint' }),
});

/** The quote; a field the model does not offer is named where the caller wrote it (`payload.size`). */
function quoteNamingPayload(...args: Parameters<typeof scaledQuote>): number {
  try {
    return scaledQuote(...args);
  } catch (err) {
    if (isGatewayError(err) && err.param && !err.param.startsWith('payload')) {
      throw new GatewayError(err.code, err.status, err.message, { param: `payload.${err.param}` });
    }
    throw err;
  }
}

/**
 * POST /v1/estimates: what a call would cost this key, with its effective discount. Runs the key,
 * expiry, IP and model checks; calls no upstream, reserves nothing and enforces no budget.
 */
export function createEstimate(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticateAndCount(ctx, services);
    const body = await readJsonObject(ctx, services.config.http.bodyLimitBytes);
    const { endpoint, payload } = parseOrThrow(estimateSchema, body.value);
    const model = authorizeModel(services, key, payloadModel(endpoint, payload), endpoint);
    const estimated = finalizeCost(quoteNamingPayload(endpoint, model, payload), discountOf(services, key));
    ctx.body = { estimated_micro_usd: estimated, is_free: isExplicitlyFree(model) };
  };
}
