import type { GatewayServices } from '../../shared/gateway/services.js';
import type { Middleware } from 'koa';
import { finalizeCost } from '../../shared/billing/pricing.js';
import { scaledQuote, videoShape } from '../../shared/billing/quote.js';
import { videoCreateSchema, type VideoCreateRequest } from '../../shared/protocols/videos/create-request.js';
import { checkVideoReferences } from '../../shared/assets/video-references.js';
import { parseOrThrow } from '../../shared/validation.js';
import { acceptTask, type TaskRoute } from './accept-task.js';

export const videoRoute: TaskRoute<VideoCreateRequest> = {
  kind: 'video',
  endpoint: 'videos',
  parse: (body) => parseOrThrow(videoCreateSchema, body),
  prepare(req, model, _key, discount) {
    const request = { ...req, ...videoShape(model, req.duration, req.resolution) };
    return { request, cost: finalizeCost(scaledQuote('videos', model, request), discount) };
  },
  check: (req, model) => checkVideoReferences(model, req.content),
};

/** POST /v1/videos: accepted at once as an idempotent, paid job; the task is polled by id. */
export function createVideoTask(services: GatewayServices): Middleware {
  return (ctx) => acceptTask(ctx, services, videoRoute);
}
