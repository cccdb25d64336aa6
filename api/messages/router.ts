import type Router from '@koa/router';
import { apiRouter } from '../http/router.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { generationHandler } from '../generation/handler.js';
import { exchangeFromKoa } from '../http/exchange.js';
import { countMessageTokens } from './count-tokens.js';
import { messagesSurface } from './surface.js';

/**
 * The Messages-style surface: under `/native-messages/v1` (the spec's prefix) and `/v1` (the older
 * unprefixed routes, which stay). `POST …/messages` is answered before Koa by the route table;
 * it is registered here too for the route list.
 */
export function messagesRouter(services: GatewayServices): Router {
  const router = apiRouter();
  const messages = generationHandler(services, messagesSurface);
  const count = countMessageTokens(services);
  for (const prefix of ['/native-messages/v1', '/v1']) {
    router.post(`${prefix}/messages`, (ctx) => messages(exchangeFromKoa(ctx), {}));
    router.post(`${prefix}/messages/count_tokens`, count);
  }
  return router;
}
