import type { Middleware } from 'koa';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { keyView } from '../../../shared/keys/key-settings.js';
import { sendData } from '../envelope.js';
import { ownKey } from './key-access.js';

/** GET /api/v1/keys/{id} */
export function getKey(services: GatewayServices): Middleware {
  return async (ctx) => {
    sendData(ctx, keyView(await ownKey(services, ctx)));
  };
}
