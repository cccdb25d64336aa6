import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../../shared/webhooks/events.js';
import type { attemptView, deliveryView, endpointView } from '../../../shared/webhooks/views.js';
import { sameType, timestamp, whole } from '../../openapi/response-fields.js';
import { dataEnvelope, pageEnvelope } from '../envelope.js';

const endpoint = z.strictObject({
  id: z.string(),
  object: z.literal('webhook_endpoint'),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  description: z.string().nullable(),
  enabled: z.boolean(),
  /** `owner`, `failing` (3 days of failed deliveries) or `account_closed`; null while enabled. */
  disabled_reason: z.enum(['owner', 'failing', 'account_closed']).nullable(),
  failing_since: timestamp.nullable(),
  /** Until then deliveries carry a second signature, made with the secret before the last rotation. */
  previous_secret_expires_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
sameType<ReturnType<typeof endpointView>, z.infer<typeof endpoint>>(true);

const attempt = z.strictObject({
  attempted_at: timestamp,
  /** The receiver's status; null when none came (a timeout, a refused connection). */
  status_code: whole.nullable(),
  duration_ms: whole,
  /** The start of the receiver's answer. */
  response_excerpt: z.string(),
  error: z.string().nullable(),
});
sameType<ReturnType<typeof attemptView>, z.infer<typeof attempt>>(true);

const delivery = z.strictObject({
  id: z.string(),
  object: z.literal('webhook_delivery'),
  endpoint_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  /** `pending` (an attempt is due or running), `delivered` (a 2xx came) or `failed` (retries spent, or the endpoint disabled). */
  status: z.enum(['pending', 'delivered', 'failed']),
  attempt_count: whole,
  next_attempt_at: timestamp.nullable(),
  last_error: z.string().nullable(),
  delivered_at: timestamp.nullable(),
  created_at: timestamp,
  /** The latest attempts, oldest first. */
  attempts: z.array(attempt),
});
sameType<ReturnType<typeof deliveryView>, z.infer<typeof delivery>>(true);

export const WEBHOOK_RESPONSES = {
  one: dataEnvelope(endpoint),
  page: pageEnvelope(endpoint),
  /** Create and rotate: the endpoint with its `whsec_` secret, shown only then. */
  withSecret: dataEnvelope(endpoint.extend({ secret: z.string() })),
  deliveries: pageEnvelope(delivery),
  delivery: dataEnvelope(delivery),
};
