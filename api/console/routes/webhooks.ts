import { pageQuerySchema } from '../envelope.js';
import { listWebhookDeliveries, redeliverWebhook, testWebhook } from '../webhooks/deliveries.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  patchWebhook,
  rotateWebhookSecret,
} from '../webhooks/endpoints.js';
import { webhookCreateSchema, webhookUpdateSchema } from '../webhooks/webhook-body.js';
import type { Route } from '../../routes/route.js';
import {
  DELIVERIES_RESPONSE,
  DELIVERY_QUEUED_RESPONSE,
  WEBHOOKS_RESPONSE,
  WEBHOOK_RESPONSE,
  WEBHOOK_ROTATED_RESPONSE,
  WEBHOOK_CREATE_EXAMPLES,
  WEBHOOK_UPDATE_EXAMPLES,
} from '../../routes/examples/console-webhooks.js';
import { WEBHOOK_RESPONSES } from '../webhooks/responses.js';

const tag = 'Console: webhooks';

/** Webhook endpoints, their deliveries and test events (docs/reference/webhooks.md). */
export const webhookRoutes: Route[] = [
  {
    method: 'get',
    path: '/api/v1/webhooks',
    tag,
    summary: "The account's webhook endpoints (paginated envelope)",
    auth: 'session',
    response: WEBHOOK_RESPONSES.page,
    query: pageQuerySchema,
    examples: { response: WEBHOOKS_RESPONSE },
    handler: listWebhooks,
  },
  {
    method: 'post',
    path: '/api/v1/webhooks',
    tag,
    summary: 'Create an endpoint subscribed to events; its `whsec_` signing secret is in `secret`, once',
    auth: 'session',
    response: WEBHOOK_RESPONSES.withSecret,
    body: webhookCreateSchema,
    examples: WEBHOOK_CREATE_EXAMPLES,
    responses: {
      201: 'the endpoint with its secret',
      400: 'invalid_request (`url`: not https, or not a public address)',
    },
    handler: createWebhook,
  },
  {
    method: 'get',
    path: '/api/v1/webhooks/:id',
    tag,
    summary: 'One endpoint',
    auth: 'session',
    response: WEBHOOK_RESPONSES.one,
    examples: { response: WEBHOOK_RESPONSE },
    handler: getWebhook,
  },
  {
    method: 'patch',
    path: '/api/v1/webhooks/:id',
    tag,
    summary: 'Update the given fields (url, events, description, enabled)',
    auth: 'session',
    response: WEBHOOK_RESPONSES.one,
    body: webhookUpdateSchema,
    examples: WEBHOOK_UPDATE_EXAMPLES,
    handler: patchWebhook,
  },
  {
    method: 'delete',
    path: '/api/v1/webhooks/:id',
    tag,
    summary: 'Delete an endpoint with its deliveries',
    auth: 'session',
    responses: { 204: 'deleted' },
    handler: deleteWebhook,
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/:id/rotate-secret',
    tag,
    summary: 'A new signing secret, shown once; the previous one keeps signing beside it for 24 h',
    auth: 'session',
    response: WEBHOOK_RESPONSES.withSecret,
    examples: { response: WEBHOOK_ROTATED_RESPONSE },
    handler: rotateWebhookSecret,
  },
  {
    method: 'get',
    path: '/api/v1/webhooks/:id/deliveries',
    tag,
    summary: "The endpoint's deliveries, newest first, with their attempts (paginated envelope)",
    auth: 'session',
    response: WEBHOOK_RESPONSES.deliveries,
    query: pageQuerySchema,
    examples: { response: DELIVERIES_RESPONSE },
    handler: listWebhookDeliveries,
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/:id/deliveries/:delivery_id/redeliver',
    tag,
    summary: 'Send a delivered or failed event again, with the same `webhook-id`',
    auth: 'session',
    response: WEBHOOK_RESPONSES.delivery,
    responses: { 202: 'the delivery, pending again', 409: 'still pending, or the endpoint is disabled' },
    examples: { response: DELIVERY_QUEUED_RESPONSE },
    handler: redeliverWebhook,
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/:id/test',
    tag,
    summary: 'Send a `webhook.test` event to this endpoint',
    auth: 'session',
    response: WEBHOOK_RESPONSES.delivery,
    responses: { 202: 'the delivery of the test event', 409: 'the endpoint is disabled' },
    examples: { response: DELIVERY_QUEUED_RESPONSE },
    handler: testWebhook,
  },
];
