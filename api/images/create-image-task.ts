import type { Middleware } from 'koa';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { imageTaskRoute } from '../../shared/tasks/image-route.js';
import { acceptTask } from '../videos/accept-task.js';

/** POST /v1/images/tasks: asynchronous image generation, charged per image on success. */
export function createImageTask(services: GatewayServices): Middleware {
  return (ctx) => acceptTask(ctx, services, imageTaskRoute);
}
