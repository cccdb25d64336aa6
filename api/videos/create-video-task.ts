import type { Middleware } from 'koa';
import { finalizeCost } from '../../shared/billing/pricing.js';
import { scaledQuote, videoShape } from '../../shared/billing/quote.js';
import { authorizeModel, discountOf } from '../../shared/gateway/pipeline.js';
import { parseIdempotencyKey } from '../../shared/idempotency/idempotency-key.js';
import { videoCreateSchema } from '../../shared/protocols/videos/create-request.js';
import { createTask } from '../../shared/tasks/create-task.js';
import { checkAssetReferences } from '../../shared/tasks/references.js';
import { callTags } from '../../shared/usage/tags.js';
import { parseOrThrow } from '../../shared/validation.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateRequest } from '../openai/credential.js';
import type { TaskApiServices } from './task-api-services.js';
import { answerCreated } from './task-responses.js';

/** POST /v1/videos: accepted at once as an idempotent, paid job; the task is polled by id. */
export function createVideoTask(services: TaskApiServices): Middleware {
  return async (ctx) => {
    const key = await authenticateRequest(ctx, services);
    const idempotencyKey = parseIdempotencyKey(ctx.get('idempotency-key') || undefined);
    const tags = callTags(ctx.get('x-service-tags') || undefined, key.tags);
    const body = await readJsonObject(ctx, services.config.http.bodyLimitBytes);
    const req = parseOrThrow(videoCreateSchema, body.value);
    const model = authorizeModel(services, key, req.model, 'videos');
    checkAssetReferences(key, req.content);
    const request = { ...req, ...videoShape(model, req.duration, req.resolution) };
    const cost = finalizeCost(scaledQuote('videos', model, request), discountOf(services, key));
    const created = await createTask(services, services.jobs, {
      kind: 'video',
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
