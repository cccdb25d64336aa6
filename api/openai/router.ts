import type Router from '@koa/router';
import { apiRouter } from '../http/router.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { createEstimate } from '../estimates/create-estimate.js';
import { createScore } from '../usage/create-score.js';
import { keyUsage } from '../usage/key-usage.js';
import { usageLogsRoute, usageReportRoute } from '../usage/usage-reports.js';
import { exchangeFromKoa } from '../http/exchange.js';
import { generationHandler } from '../generation/handler.js';
import { chatCompletionsSurface } from './chat-surface.js';
import { responsesSurface } from './responses-surface.js';
import { embeddingsHandler } from '../embeddings/handler.js';
import { openAiEmbeddings } from '../embeddings/surfaces.js';
import { jsonImages } from '../images/json-images.js';
import { getModel, listModels } from './models.js';

/** The OpenAI-compatible surface under /v1. */
export function openAiRouter(services: GatewayServices): Router {
  const router = apiRouter('/v1');
  // Answered before Koa by the route table (api/http/route-table.ts); kept here for the route list.
  const chat = generationHandler(services, chatCompletionsSurface);
  router.post('/chat/completions', (ctx) => chat(exchangeFromKoa(ctx), {}));
  const responses = generationHandler(services, responsesSurface);
  router.post('/responses', (ctx) => responses(exchangeFromKoa(ctx), {}));
  const embeddings = embeddingsHandler(services, openAiEmbeddings);
  router.post('/embeddings', (ctx) => embeddings(exchangeFromKoa(ctx), {}));
  router.post('/images/generations', jsonImages(services, 'generations'));
  router.post('/images/edits', jsonImages(services, 'edits'));
  router.get('/models', listModels(services));
  router.get('/models/*id', getModel(services));
  router.post('/estimates', createEstimate(services));
  router.get('/key/usage', keyUsage(services));
  router.get('/usage/report', usageReportRoute(services));
  router.get('/usage/logs', usageLogsRoute(services));
  router.post('/scores', createScore(services));
  return router;
}
