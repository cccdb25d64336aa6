import { z } from 'zod';
import { whole } from '../openapi/response-fields.js';

// Video and image tasks as the key routes answer them (shared/tasks/task-view.ts): moments in Unix
// seconds; the charge and the provider's usage once the task succeeded and was settled; the
// stored results (fresh signed links) once mirrored, beside the provider's own URLs.

const unix = whole;
const common = {
  id: z.string(),
  status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired']),
  model: z.string(),
  created_at: unix,
  completed_at: unix.nullable(),
  /** 0-100. */
  progress: z.number(),
  /** Why it failed (or expired). */
  error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
  charged_micro_usd: whole.optional(),
  /** The provider's usage, as it reported it. */
  usage: z.record(z.string(), z.unknown()).optional(),
};

export const videoTask = z.strictObject({
  ...common,
  object: z.literal('video'),
  duration: z.number(),
  resolution: z.string(),
  generate_audio: z.boolean(),
  stored_url: z.string().optional(),
  provider_url: z.string().optional(),
});

export const imageTask = z.strictObject({
  ...common,
  object: z.literal('image.task'),
  n: whole,
  size: z.string(),
  stored_url: z.string().optional(),
  stored_urls: z.array(z.string()).optional(),
  provider_url: z.string().optional(),
  provider_urls: z.array(z.string()).optional(),
});

/** OpenAI's cursor list: `after` = the previous page's `last_id`. */
export const cursorList = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    object: z.literal('list'),
    data: z.array(item),
    has_more: z.boolean(),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
  });

export const TASK_RESPONSES = {
  video: videoTask,
  videos: cursorList(videoTask),
  image: imageTask,
  images: cursorList(imageTask),
};
