import { finalizeCost } from '../billing/pricing.js';
import { scaledQuote } from '../billing/quote.js';
import { imageGenerationSchema, type ImageGenerationRequest } from '../protocols/images/generation-request.js';
import { parseOrThrow } from '../validation.js';
import type { TaskRoute } from './task-route.js';

/** An image task: `POST /v1/images/tasks`, and the private protocol's image calls; charged per image delivered. */
export const imageTaskRoute: TaskRoute<ImageGenerationRequest> = {
  kind: 'image',
  endpoint: 'images/tasks',
  parse: (body) => parseOrThrow(imageGenerationSchema, body),
  prepare: (request, model, _key, discount) => ({
    request,
    cost: finalizeCost(scaledQuote('images/generations', model, request), discount),
  }),
};
