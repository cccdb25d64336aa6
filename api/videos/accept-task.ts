import type { Context } from 'koa';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { parseIdempotencyKey } from '../../shared/idempotency/idempotency-key.js';
import { createRouteTask, type TaskRoute } from '../../shared/tasks/task-route.js';
import { callTags } from '../../shared/usage/tags.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateRequest } from '../http/credential.js';
import { answerCreated, baseUrl } from './task-responses.js';

/** The creating call of every task surface: steps 1-3, a known Idempotency-Key's replay, else step 4, validation and pricing, then a job. */
export async function acceptTask<R extends { model: string }>(
  ctx: Context,
  services: GatewayServices,
  route: TaskRoute<R>,
): Promise<void> {
  const key = await authenticateRequest(ctx, services);
  const idempotencyKey = parseIdempotencyKey(ctx.get('idempotency-key') || undefined);
  const tags = callTags(ctx.get('x-service-tags') || undefined, key.tags);
  const body = await readJsonObject(ctx, services.config.http.bodyLimitBytes);
  const { created, modelId } = await createRouteTask(services, key, route, body.value, {
    requestId: ctx.state.requestId as string,
    tags,
    idempotencyKey,
    baseUrl: baseUrl(services, ctx),
  });
  answerCreated(ctx, created, modelId);
}
