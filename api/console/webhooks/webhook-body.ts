import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../../shared/webhooks/events.js';
import { MAX_URL_LENGTH } from '../../../shared/webhooks/endpoint-url.js';

const url = z.string().min(1, 'is required').max(MAX_URL_LENGTH, `is at most ${MAX_URL_LENGTH} characters`);
const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1, 'subscribe to at least one event')
  .max(WEBHOOK_EVENT_TYPES.length)
  // Listed twice is listed once.
  .transform((list) => [...new Set(list)]);
const description = z.string().max(500, 'is at most 500 characters');

/** POST /api/v1/webhooks: the URL is checked further (https, a public address) by checkEndpointUrl. */
export const webhookCreateSchema = z.strictObject({ url, events, description: description.nullable().optional() });

/** PATCH /api/v1/webhooks/{id}: the given fields; `enabled: true` also clears a disabling for failing. */
export const webhookUpdateSchema = z.strictObject({
  url: url.optional(),
  events: events.optional(),
  description: description.nullable().optional(),
  enabled: z.boolean().optional(),
});
