import type { Middleware } from 'koa';
import { structuredTokenCount } from '../../shared/billing/prompt-tokens.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { countTokensRequestSchema } from '../../shared/protocols/anthropic/messages-request.js';
import { planModels } from '../../shared/routing/plan.js';
import { parseOrThrow } from '../../shared/validation.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateAndCount } from '../http/credential.js';
import { messagesCredential } from './surface.js';

/**
 * POST …/v1/messages/count_tokens → `{input_tokens}`: counted by the gateway with the model's
 * tokenizer (the catalog's `tokenizer`), whatever protocol its upstream speaks; no upstream call,
 * nothing charged, counted against the key's request rate. `X-Service-Token-Count` says how.
 */
export function countMessageTokens(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticateAndCount(ctx, services, { secret: messagesCredential(ctx.req), ip: ctx.ip });
    const body = await readJsonObject(ctx, services.config.http.bodyLimitBytes);
    const request = parseOrThrow(countTokensRequestSchema, body.value);
    const plan = await planModels(services.routing, key, request.model, 'chat/completions');
    const model = plan.models[0]!;
    ctx.set('X-Service-Token-Count', `estimated; tokenizer=${model.tokenizer}`);
    ctx.body = { input_tokens: structuredTokenCount(request.messages, [request.system, request.tools], model) };
  };
}
