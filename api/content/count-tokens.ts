import type { Middleware } from 'koa';
import { structuredTokenCount } from '../../shared/billing/prompt-tokens.js';
import { GatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { countContentTokensSchema } from '../../shared/protocols/gemini/content-request.js';
import { field } from '../../shared/protocols/gemini/to-canonical.js';
import { planModels } from '../../shared/routing/plan.js';
import { parseOrThrow } from '../../shared/validation.js';
import { pathParam } from '../http/router.js';
import { readJsonObject } from '../middleware/read-json.js';
import { contentKey } from './models.js';
import { modelOfPath } from './surface.js';

/**
 * `:countTokens` → `{totalTokens}`, counted by the gateway with the model's tokenizer (no upstream
 * call, nothing charged); takes `contents` or a whole `generateContentRequest`.
 */
export function countContentTokens(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await contentKey(ctx, services);
    const body = await readJsonObject(ctx, services.config.http.bodyLimitBytes);
    const request = parseOrThrow(countContentTokensSchema, body.value);
    const whole = request.generateContentRequest;
    const contents = whole?.contents ?? request.contents;
    if (!contents)
      throw new GatewayError('invalid_request', 400, "invalid value for 'contents': required array", {
        param: 'contents',
      });
    const modelId = modelOfPath(pathParam(ctx, 'model'));
    const plan = await planModels(services.routing, key, modelId, 'chat/completions');
    const model = plan.models[0]!;
    ctx.set('X-Service-Token-Count', `estimated; tokenizer=${model.tokenizer}`);
    ctx.body = {
      totalTokens: structuredTokenCount(contents, whole ? [field(whole, 'systemInstruction'), whole.tools] : [], model),
    };
  };
}
