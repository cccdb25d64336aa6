import type { Middleware } from 'koa';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { videoRoute } from '../../shared/tasks/video-route.js';
import { acceptTask } from './accept-task.js';

/** POST /v1/videos: accepted at once as an idempotent, paid job; the task is polled by id. */
export function createVideoTask(services: GatewayServices): Middleware {
  return (ctx) => acceptTask(ctx, services, videoRoute);
}
