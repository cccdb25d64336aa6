import { checkVideoReferences, referenceFetchLimits } from '../assets/video-references.js';
import { finalizeCost } from '../billing/pricing.js';
import { scaledQuote, videoShape } from '../billing/quote.js';
import { videoCreateSchema, type VideoCreateRequest } from '../protocols/videos/create-request.js';
import { parseOrThrow } from '../validation.js';
import type { TaskRoute } from './task-route.js';

/** A video task: `POST /v1/videos`, and the private protocol's video calls. */
export const videoRoute: TaskRoute<VideoCreateRequest> = {
  kind: 'video',
  endpoint: 'videos',
  parse: (body) => parseOrThrow(videoCreateSchema, body),
  prepare(req, model, _key, discount) {
    const request = { ...req, ...videoShape(model, req.duration, req.resolution) };
    return { request, cost: finalizeCost(scaledQuote('videos', model, request), discount) };
  },
  check: (req, model) => checkVideoReferences(model, req.content),
  fetchLimits: referenceFetchLimits,
};
