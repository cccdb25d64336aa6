import type { TaskRow } from '../db/schema.js';

/** Builds a short-lived, owner-scoped link to a stored result (see shared/storage/signed-links.ts). */
export type StoredLink = (task: TaskRow, objectKey: string) => string;

const seconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

/**
 * A task as the client sees it. `stored_url` (the gateway's own copy) is a fresh short-lived link on
 * every read; `provider_url` is the provider's, when it gave one, used when the mirror failed.
 */
export function taskView(task: TaskRow, link?: StoredLink) {
  const stored = (task.stored_keys ?? [])
    .map((k) => (link ? link(task, k) : undefined))
    .filter((u): u is string => u !== undefined);
  const common = {
    id: task.id,
    status: task.status,
    model: task.model,
    created_at: seconds(task.created_at),
    completed_at: seconds(task.finished_at),
    progress: task.progress ?? (task.status === 'succeeded' ? 100 : 0),
    ...(task.error_code ? { error: { code: task.error_code, message: task.error_message ?? '' } } : {}),
    ...(task.stage === 'done' && task.status === 'succeeded'
      ? { charged_micro_usd: task.charged_micro_usd, ...(task.usage ? { usage: task.usage } : {}) }
      : {}),
  };
  const r = task.request;
  if (task.kind === 'video') {
    return {
      ...common,
      object: 'video',
      duration: r.duration,
      resolution: r.resolution,
      generate_audio: r.generate_audio,
      ...(stored[0] ? { stored_url: stored[0] } : {}),
      ...(task.provider_url ? { provider_url: task.provider_url } : {}),
    };
  }
  return {
    ...common,
    object: 'image.task',
    n: r.n,
    size: r.size,
    ...(stored.length ? { stored_url: stored[0], stored_urls: stored } : {}),
    ...(task.provider_urls?.length ? { provider_url: task.provider_urls[0], provider_urls: task.provider_urls } : {}),
  };
}
