import type { ColumnType, Generated, Selectable } from 'kysely';
import type { TraceContextColumn } from './schema.js';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export type EndpointDisabledReason = 'owner' | 'failing' | 'account_closed';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookEndpointsTable {
  id: string;
  user_id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Timestamp | null;
  failing_since: Timestamp | null;
  disabled_reason: EndpointDisabledReason | null;
  disabled_at: Timestamp | null;
  owner_notified_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface WebhookEventsTable {
  id: string;
  user_id: string;
  type: string;
  subject_id: string;
  payload: string;
  created_at: Timestamp;
  trace_context: TraceContextColumn;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  user_id: string;
  status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp | null;
  attempt_started_at: Timestamp | null;
  attempt_job: string | null;
  retry_until: Timestamp;
  last_error: string | null;
  delivered_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveryAttemptsTable {
  id: Generated<string>;
  delivery_id: string;
  attempted_at: Timestamp;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string;
  error: string | null;
}

/** The webhook tables (migrations/0022_webhooks.sql), merged into the Database interface. */
export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
}

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookEventRow = Selectable<WebhookEventsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookDeliveryAttemptsTable>;
