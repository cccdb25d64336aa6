import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { attemptsOf, findDelivery, listDeliveries, reopenDelivery } from '../../../shared/db/webhook-deliveries.js';
import { recordEvent } from '../../../shared/webhooks/outbox.js';
import type { WebhookEndpointRow } from '../../../shared/db/webhook-schema.js';
import { GatewayError, notFound } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { enqueueDelivery } from '../../../shared/webhooks/enqueue.js';
import { RETRY_WINDOW_MS } from '../../../shared/webhooks/retry-schedule.js';
import { deliveryView } from '../../../shared/webhooks/views.js';
import { readConsoleBody } from '../body.js';
import { readPageQuery, sendData, sendPage } from '../envelope.js';
import { DELIVERY_ID, endpointIdParam, ownEndpoint } from './endpoint-access.js';

/** The attempts shown with each delivery: the latest ones (a delivery retried for 3 days makes about 17). */
const ATTEMPTS_SHOWN = 25;

const deliveryNotFound = () => notFound('no such delivery of this webhook endpoint');

/** GET /api/v1/webhooks/{id}/deliveries: newest first, each with its latest attempts. */
export function listWebhookDeliveries(services: GatewayServices): Middleware {
  return async (ctx) => {
    const query = readPageQuery(ctx);
    const endpoint = await ownEndpoint(services, ctx);
    const { rows, total } = await listDeliveries(
      services.db,
      endpoint.user_id,
      endpoint.id,
      query.page,
      query.pageSize,
    );
    const attempts = await attemptsOf(
      services.db,
      rows.map((r) => r.id),
      ATTEMPTS_SHOWN,
    );
    sendPage(
      ctx,
      query,
      rows.map((row) => deliveryView(row, attempts.get(row.id) ?? [])),
      total,
    );
  };
}

/**
 * POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver: sends the same event again (the
 * same `webhook-id`), retried for 3 days like a new one. 202 with the delivery, now pending.
 */
export function redeliverWebhook(services: GatewayServices): Middleware {
  return async (ctx) => {
    endpointIdParam(ctx);
    const deliveryId = String(ctx.params.delivery_id ?? '');
    if (!DELIVERY_ID.test(deliveryId)) throw deliveryNotFound();
    await readConsoleBody(ctx, z.strictObject({}));
    const endpoint = enabledEndpoint(await ownEndpoint(services, ctx));
    const current = await findDelivery(services.db, endpoint.user_id, endpoint.id, deliveryId);
    if (!current) throw deliveryNotFound();
    const now = services.clock.now();
    const reopened = await reopenDelivery(services.db, current.id, new Date(now), new Date(now + RETRY_WINDOW_MS));
    if (!reopened)
      throw new GatewayError('conflict', 409, 'this delivery is still pending: its next attempt is already scheduled');
    await enqueueDelivery(services.jobs, reopened.id, reopened.attempts);
    sendAccepted(ctx, deliveryView({ ...reopened, event_type: current.event_type }, []));
  };
}

/** POST /api/v1/webhooks/{id}/test: a `webhook.test` event to this endpoint only, whatever it subscribes to. 202 with its delivery. */
export function testWebhook(services: GatewayServices): Middleware {
  return async (ctx) => {
    endpointIdParam(ctx);
    await readConsoleBody(ctx, z.strictObject({}));
    const endpoint = enabledEndpoint(await ownEndpoint(services, ctx));
    const createdAt = new Date(services.clock.now());
    const [deliveryId] = await services.db.transaction().execute((trx) =>
      recordEvent(
        trx,
        {
          userId: endpoint.user_id,
          type: 'webhook.test',
          subject: { id: endpoint.id, object: 'webhook_endpoint' },
          createdAt,
        },
        { endpointId: endpoint.id },
      ),
    );
    if (!deliveryId) throw notFound('no such webhook endpoint'); // deleted meanwhile
    await enqueueDelivery(services.jobs, deliveryId, 0);
    const delivery = await findDelivery(services.db, endpoint.user_id, endpoint.id, deliveryId);
    sendAccepted(ctx, delivery ? deliveryView(delivery, []) : { id: deliveryId });
  };
}

function enabledEndpoint(endpoint: WebhookEndpointRow): WebhookEndpointRow {
  if (!endpoint.enabled)
    throw new GatewayError('conflict', 409, 'this webhook endpoint is disabled: enable it first (PATCH enabled: true)');
  return endpoint;
}

function sendAccepted(ctx: Context, data: unknown): void {
  sendData(ctx, data, 202);
}
