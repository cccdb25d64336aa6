import type { Middleware } from 'koa';
import { finalizeCost } from '../../shared/billing/pricing.js';
import { scaledQuote } from '../../shared/billing/quote.js';
import { authorizeModel, discountOf } from '../../shared/gateway/pipeline.js';
import { parseIdempotencyKey } from '../../shared/idempotency/idempotency-key.js';
import { imageGenerationSchema } from '../../shared/protocols/images/generation-request.js';
import { createTask } from '../../shared/tasks/create-task.js';
import { callTags } from '../../shared/usage/tags.js';
import { parseOrThrow } from '../../shared/validation.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateRequest } from '../openai/credential.js';
import type { TaskApiServices } from '../videos/task-api-services.js';
import { answerCreated } from '../videos/task-responses.js';

/** POST /v1/images/tasks: asynchronous image generation, charged per image on success. */
export function createImageTask(services: TaskApiServices): Middleware {
  return async (ctx) => {
    const key = await authenticateRequest(ctx, services);
    const idempotencyKey = parseIdempotencyKey(ctx.get('idempotency-key') || undefined);
    const tags = callTags(ctx.get('x-service-tags') || undefined, key.tags);
    const body = await readJsonObject(ctx, services.config.http.bodyLimitBytes);
    const request = parseOrThrow(imageGenerationSchema, body.value);
    const model = authorizeModel(services, key, request.model, 'images/tasks');
    const cost = finalizeCost(scaledQuote('images/generations', model, request), discountOf(services, key));
    const created = await createTask(services, services.jobs, {
      kind: 'image',
      key,
      model,
      request,
      rawBody: body.value,
      requestId: ctx.state.requestId,
      tags,
      idempotencyKey,
      cost,
    });
    answerCreated(ctx, created, model.id);
  };
}
