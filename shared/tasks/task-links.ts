import type { TaskRow } from '../db/schema.js';
import type { GatewayServices } from '../gateway/services.js';
import { linkUrl, signLink } from '../storage/signed-links.js';
import { taskView } from './task-view.js';

/** A stored_url works for this long; every read of the task makes a fresh one. */
const LINK_TTL_MS = 60 * 60 * 1000;

/** A task as the client sees it, its stored results as fresh signed links under `base` (the gateway's origin). */
export function taskViewWithLinks(
  services: Pick<GatewayServices, 'clock' | 'linkSecret'>,
  base: string,
  task: TaskRow,
) {
  const expiresAt = services.clock.now() + LINK_TTL_MS;
  return taskView(task, (t, objectKey) => {
    const filename = objectKey.slice(objectKey.lastIndexOf('/') + 1);
    return linkUrl(base, signLink({ objectKey, userId: t.user_id, expiresAt, filename }, services.linkSecret));
  });
}
