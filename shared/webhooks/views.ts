import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../db/webhook-schema.js';
import type { WebhookEventType } from './events.js';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** An endpoint as its owner sees it; the secret only where it is made (create, rotate). */
export function endpointView(row: WebhookEndpointRow, now: number) {
  const rotating = row.previous_secret_expires_at && row.previous_secret_expires_at.getTime() > now;
  return {
    id: row.id,
    object: 'webhook_endpoint' as const,
    url: row.url,
    // Written only from the event list (the create and update schemas), so read back as it.
    events: row.events as WebhookEventType[],
    description: row.description,
    enabled: row.enabled,
    /** `owner`, `failing` (3 days of failed deliveries) or `account_closed`; null while enabled. */
    disabled_reason: row.enabled ? null : row.disabled_reason,
    failing_since: iso(row.failing_since),
    /** Until then deliveries carry a second signature, made with the secret before the last rotation. */
    previous_secret_expires_at: rotating ? iso(row.previous_secret_expires_at) : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function attemptView(row: WebhookAttemptRow) {
  return {
    attempted_at: row.attempted_at.toISOString(),
    status_code: row.status_code,
    duration_ms: row.duration_ms,
    response_excerpt: row.response_excerpt,
    error: row.error,
  };
}

/** A delivery of one event to one endpoint, with its latest attempts (oldest first). */
export function deliveryView(row: WebhookDeliveryRow & { event_type: string }, attempts: WebhookAttemptRow[]) {
  return {
    id: row.id,
    object: 'webhook_delivery' as const,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    /** `pending` (an attempt is due or running), `delivered` (a 2xx came) or `failed` (retries spent, or the endpoint disabled). */
    status: row.status,
    attempt_count: row.attempts,
    next_attempt_at: iso(row.status === 'pending' ? row.next_attempt_at : null),
    last_error: row.last_error,
    delivered_at: iso(row.delivered_at),
    created_at: row.created_at.toISOString(),
    attempts: attempts.map(attemptView),
  };
}
