import { AT, one, page } from './common.js';

/** The console's webhook endpoints and their deliveries (docs/reference/webhooks.md). */

const endpoint = {
  id: 'wh_3kTMd9Qw1xYz7aBcD4eFgH2i',
  object: 'webhook_endpoint',
  url: 'https://hooks.example.com/gateway',
  events: ['video.completed', 'batch.completed'],
  description: 'production receiver',
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  previous_secret_expires_at: null,
  created_at: AT,
  updated_at: AT,
};

export const WEBHOOK_CREATE_EXAMPLES = {
  request: {
    url: 'https://hooks.example.com/gateway',
    events: ['video.completed', 'batch.completed'],
    description: 'production receiver',
  },
  response: one({ ...endpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }, 'req_5d2a7b'),
};
export const WEBHOOK_UPDATE_EXAMPLES = {
  request: { events: ['batch.completed'], enabled: false },
  response: one({ ...endpoint, events: ['batch.completed'], enabled: false, disabled_reason: 'owner' }, 'req_5d2a7c'),
};
export const WEBHOOKS_RESPONSE = page(endpoint, 'req_5d2a80');
export const WEBHOOK_RESPONSE = one(endpoint, 'req_5d2a81');
export const WEBHOOK_ROTATED_RESPONSE = one(
  {
    ...endpoint,
    previous_secret_expires_at: '2026-02-01T12:00:00.000Z',
    secret: 'whsec_FJfA4dH3LzNLjRxnA16BiFk8i7X1BnDq',
  },
  'req_5d2a82',
);

const delivery = {
  id: 'whd_4CoqBJmoClWbMqNsYStsxEz2',
  object: 'webhook_delivery',
  endpoint_id: endpoint.id,
  event_id: 'evt_f4JecHuHSv8WYsjxLL0KuUdv',
  event_type: 'batch.completed',
  status: 'delivered',
  attempt_count: 1,
  next_attempt_at: null,
  last_error: null,
  delivered_at: '2026-01-31T12:00:01.000Z',
  created_at: AT,
  attempts: [
    {
      attempted_at: '2026-01-31T12:00:01.000Z',
      status_code: 200,
      duration_ms: 84,
      response_excerpt: 'ok',
      error: null,
    },
  ],
};
export const DELIVERIES_RESPONSE = page(delivery, 'req_5d2a83');
/** A test event or a redelivery: the delivery, queued. */
export const DELIVERY_QUEUED_RESPONSE = one(
  {
    ...delivery,
    event_type: 'webhook.test',
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: AT,
    delivered_at: null,
    attempts: [],
  },
  'req_5d2a84',
);
