import type { TaskKind, TaskStatus } from '../db/schema.js';
import { randomBase62 } from '../ids.js';

/** Every event an endpoint can subscribe to (the contract in docs/reference/webhooks.md). */
export const WEBHOOK_EVENT_TYPES = [
  'video.completed',
  'video.failed',
  'video.cancelled',
  'image_task.completed',
  'image_task.failed',
  'image_task.cancelled',
  'batch.completed',
  'batch.failed',
  'batch.expired',
  'batch.cancelled',
  'webhook.test',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What an event is about, as its body's `data` names it. */
export interface EventSubject {
  id: string;
  object: string;
}

const TASK_EVENT: Record<TaskKind, { prefix: string; object: string }> = {
  video: { prefix: 'video', object: 'video' },
  image: { prefix: 'image_task', object: 'image.task' },
};

// An expired task is a failed one to a client (as OpenAI's videos end `failed` when they time out);
// its `error.code` (`task_expired`) tells them apart.
const OUTCOME: Partial<Record<TaskStatus, string>> = {
  succeeded: 'completed',
  failed: 'failed',
  expired: 'failed',
  cancelled: 'cancelled',
};

/** The event that announces a task reaching `status`; undefined for a status that is not an end. */
export function taskEvent(
  kind: TaskKind,
  taskId: string,
  status: TaskStatus,
): { type: WebhookEventType; subject: EventSubject } | undefined {
  const outcome = OUTCOME[status];
  if (!outcome) return undefined;
  const { prefix, object } = TASK_EVENT[kind];
  return { type: `${prefix}.${outcome}` as WebhookEventType, subject: { id: taskId, object } };
}

export function newEventId(): string {
  return `evt_${randomBase62(24)}`;
}

/** The body every attempt sends, byte for byte (Standard Webhooks signs these bytes). */
export function eventPayload(id: string, type: WebhookEventType, createdAt: Date, subject: EventSubject): string {
  return JSON.stringify({
    id,
    object: 'event',
    type,
    created_at: Math.floor(createdAt.getTime() / 1000),
    data: { id: subject.id, object: subject.object },
  });
}
