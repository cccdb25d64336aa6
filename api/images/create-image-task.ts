import type { GatewayServices } from '../../shared/gateway/services.js';
import type { Middleware } from 'koa';
import { finalizeCost } from '../../shared/billing/pricing.js';
import { scaledQuote } from '../../shared/billing/quote.js';
import {
  imageGenerationSchema,
  type ImageGenerationRequest,
} from '../../shared/protocols/images/generation-request.js';
import { parseOrThrow } from '../../shared/validation.js';
import { acceptTask, type TaskRoute } from '../videos/accept-task.js';

export const imageTaskRoute: TaskRoute<ImageGenerationRequest> = {
  kind: 'image',
  endpoint: 'images/tasks',
  parse: (body) => parseOrThrow(imageGenerationSchema, body),
  prepare: (request, model, _key, discount) => ({
    request,
    cost: finalizeCost(scaledQuote('images/generations', model, request), discount),
  }),
};

/** POST /v1/images/tasks: asynchronous image generation, charged per image on success. */
export function createImageTask(services: GatewayServices): Middleware {
  return (ctx) => acceptTask(ctx, services, imageTaskRoute);
}
