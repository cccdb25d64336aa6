import type { Middleware } from 'koa';
import { z } from 'zod';
import {
  deleteEndpoint,
  insertEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from '../../../shared/db/webhook-endpoints.js';
import { failPendingDeliveries } from '../../../shared/db/webhook-deliveries.js';
import type { WebhookEndpointsTable } from '../../../shared/db/webhook-schema.js';
import { GatewayError } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { randomBase62 } from '../../../shared/ids.js';
import { checkEndpointUrl } from '../../../shared/webhooks/endpoint-url.js';
import { ROTATION_OVERLAP_MS } from '../../../shared/webhooks/retry-schedule.js';
import { newWebhookSecret } from '../../../shared/webhooks/signature.js';
import { endpointView } from '../../../shared/webhooks/views.js';
import { readConsoleBody } from '../body.js';
import { readPageQuery, sendData, sendPage } from '../envelope.js';
import { signedIn } from '../session.js';
import { endpointIdParam, endpointNotFound, ownEndpoint } from './endpoint-access.js';
import { webhookCreateSchema, webhookUpdateSchema } from './webhook-body.js';
import type { Updateable } from 'kysely';

/** Every event is delivered to each subscribed endpoint: the fan-out of one account stays bounded. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;

/** POST /api/v1/webhooks: 201 with the endpoint and, this once only, its signing secret. */
export function createWebhook(services: GatewayServices): Middleware {
  return async (ctx) => {
    const body = await readConsoleBody(ctx, webhookCreateSchema);
    const userId = signedIn(ctx).user.id;
    const url = await checkEndpointUrl(body.url, services.config.webhooks);
    const { total } = await listEndpoints(services.db, userId, 1, 1);
    if (total >= MAX_ENDPOINTS_PER_ACCOUNT)
      throw new GatewayError(
        'conflict',
        409,
        `an account has at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints: delete one first`,
      );
    const row = await insertEndpoint(services.db, {
      id: `wh_${randomBase62(24)}`,
      user_id: userId,
      url,
      events: body.events,
      description: body.description ?? null,
      secret: newWebhookSecret(),
    });
    ctx.set('Cache-Control', 'no-store');
    sendData(ctx, { ...endpointView(row, services.clock.now()), secret: row.secret }, 201);
  };
}

/** GET /api/v1/webhooks: the account's endpoints, newest first, in the paginated envelope. */
export function listWebhooks(services: GatewayServices): Middleware {
  return async (ctx) => {
    const query = readPageQuery(ctx);
    const { rows, total } = await listEndpoints(services.db, signedIn(ctx).user.id, query.page, query.pageSize);
    const now = services.clock.now();
    sendPage(
      ctx,
      query,
      rows.map((row) => endpointView(row, now)),
      total,
    );
  };
}

export function getWebhook(services: GatewayServices): Middleware {
  return async (ctx) => {
    sendData(ctx, endpointView(await ownEndpoint(services, ctx), services.clock.now()));
  };
}

/**
 * PATCH /api/v1/webhooks/{id}: the given fields. Disabling stops deliveries (pending ones end
 * `failed`); enabling again clears a disabling for failing, and the failing streak with it.
 */
export function patchWebhook(services: GatewayServices): Middleware {
  return async (ctx) => {
    endpointIdParam(ctx);
    const body = await readConsoleBody(ctx, webhookUpdateSchema);
    const current = await ownEndpoint(services, ctx);
    const now = new Date(services.clock.now());
    const patch: Updateable<WebhookEndpointsTable> = {};
    if (body.url !== undefined) patch.url = await checkEndpointUrl(body.url, services.config.webhooks);
    if (body.events !== undefined) patch.events = body.events;
    if (body.description !== undefined) patch.description = body.description;
    if (body.enabled === true && !current.enabled)
      Object.assign(patch, { enabled: true, disabled_reason: null, disabled_at: null, failing_since: null });
    if (body.enabled === false && current.enabled)
      Object.assign(patch, { enabled: false, disabled_reason: 'owner', disabled_at: now });
    const row = await services.db.transaction().execute(async (trx) => {
      const updated = await updateEndpoint(trx, current.user_id, current.id, patch);
      if (updated && patch.enabled === false)
        await failPendingDeliveries(trx, updated.id, 'the endpoint was disabled by its owner', now);
      return updated;
    });
    if (!row) throw endpointNotFound(); // deleted between the two queries
    sendData(ctx, endpointView(row, now.getTime()));
  };
}

/** DELETE /api/v1/webhooks/{id}: 204; its deliveries and their attempts go with it. */
export function deleteWebhook(services: GatewayServices): Middleware {
  return async (ctx) => {
    if (!(await deleteEndpoint(services.db, signedIn(ctx).user.id, endpointIdParam(ctx)))) throw endpointNotFound();
    ctx.status = 204;
  };
}

/**
 * POST /api/v1/webhooks/{id}/rotate-secret: a new secret, shown this once. The previous one keeps
 * signing beside it for 24 h (two signatures in `webhook-signature`), so receivers can switch
 * without missing an event; a second rotation within them drops the oldest.
 */
export function rotateWebhookSecret(services: GatewayServices): Middleware {
  return async (ctx) => {
    endpointIdParam(ctx);
    await readConsoleBody(ctx, z.strictObject({}));
    const current = await ownEndpoint(services, ctx);
    const now = services.clock.now();
    const row = await rotateEndpointSecret(
      services.db,
      current.user_id,
      current.id,
      newWebhookSecret(),
      new Date(now + ROTATION_OVERLAP_MS),
    );
    if (!row) throw endpointNotFound();
    ctx.set('Cache-Control', 'no-store');
    sendData(ctx, { ...endpointView(row, now), secret: row.secret });
  };
}
