import type { Middleware } from 'koa';
import { z } from 'zod';
import { finalizeCost, isExplicitlyFree } from '../../shared/billing/pricing.js';
import { QUOTABLE, payloadModel, scaledQuote, type QuotableEndpoint } from '../../shared/billing/quote.js';
import type { CatalogModel } from '../../shared/catalog/index.js';
import { authorizeModel, discountOf } from '../../shared/gateway/pipeline.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { withDefaultModel } from '../../shared/routing/default-model.js';
import { parseModelSpec } from '../../shared/routing/model-spec.js';
import { planModels } from '../../shared/routing/plan.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { parseOrThrow } from '../../shared/validation.js';
import { GatewayError, isGatewayError } from '../../shared/errors.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateAndCount } from '../http/credential.js';

export const estimateSchema = z.strictObject({
  endpoint: z.enum(QUOTABLE),
  payload: z.record(z.string(), z.unknown(), { error: 'required object: the request body of that endpoint' }),
});

/** The answer: the most the call could cost this key (its group's discount applied), in micro-USD. */
export const estimateAnswer = z.strictObject({ estimated_micro_usd: z.number().int(), is_free: z.boolean() });

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
 * The models the payload's call could be answered by: the model it names (step 4's checks), or
 * every candidate of its routing plan — `auto`, `auto:*`, `@preset/<slug>`, and no model at all
 * with a key bound to a default preset.
 */
async function candidates(
  services: GatewayServices,
  key: ApiKeyContext,
  endpoint: QuotableEndpoint,
  payload: Record<string, unknown>,
): Promise<readonly CatalogModel[]> {
  const requested = payloadModel(endpoint, payload);
  if (parseModelSpec(requested, 'payload.model').kind === 'model')
    return [authorizeModel(services, key, requested, endpoint)];
  return (await planModels(services.routing, key, requested, endpoint)).models;
}

/**
 * POST /v1/estimates: what a call would cost this key, with its effective discount. Runs the key,
 * expiry, IP and model checks; calls no upstream, reserves nothing and enforces no budget. A
 * routing model is quoted at the most the call can cost: the dearest of its plan's candidates
 * (each tried model is charged on its own, but only the one that answers costs the output).
 */
export function createEstimate(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticateAndCount(ctx, services);
    const body = await readJsonObject(ctx, services.config.http.bodyLimitBytes);
    const parsed = parseOrThrow(estimateSchema, body.value);
    const payload = withDefaultModel(parsed.payload, key);
    const models = await candidates(services, key, parsed.endpoint, payload);
    const discount = discountOf(services, key);
    const estimated = Math.max(
      ...models.map((model) => finalizeCost(quoteNamingPayload(parsed.endpoint, model, payload), discount)),
    );
    ctx.body = { estimated_micro_usd: estimated, is_free: models.every(isExplicitlyFree) };
  };
}
