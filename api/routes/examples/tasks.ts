import { SIGNED_LINK, UNIX } from './common.js';

/**
 * Video and image tasks: created `queued`, then `running`, and `succeeded` with the result mirrored
 * to the gateway's storage (`stored_url`, a signed link) beside the provider's own URL, or
 * `failed`, `cancelled`, `expired`. The charge and the provider's usage appear once it ended.
 */

const PROVIDER_URL = 'https://cdn.provider.example/results/cgt-20260131120000-1370fb1.mp4';

const video = {
  id: 'video_mx530ghpQCPy5znrTnlS1RYq',
  status: 'queued',
  model: 'seedance-lite',
  created_at: UNIX,
  completed_at: null,
  progress: 0,
  object: 'video',
  duration: 5,
  resolution: '720p',
  generate_audio: false,
};

const videoDone = {
  ...video,
  status: 'succeeded',
  completed_at: UNIX + 95,
  progress: 100,
  charged_micro_usd: 50_000,
  // The provider's usage, as it reported it.
  usage: { total_tokens: 108_000, duration_seconds: 5, completion_tokens: 108_000 },
  stored_url: SIGNED_LINK,
  provider_url: PROVIDER_URL,
};

const list = (item: { id: string }) => ({
  object: 'list',
  data: [item],
  has_more: false,
  first_id: item.id,
  last_id: item.id,
});

export const VIDEO_CREATE_EXAMPLES = {
  request: {
    model: 'seedance-lite',
    content: [{ type: 'text', text: 'A lighthouse at dawn, waves rolling in' }],
    duration: 5,
    resolution: '720p',
  },
  response: video,
};
export const VIDEO_RESPONSE = videoDone;
export const VIDEOS_RESPONSE = list(videoDone);
export const VIDEO_CANCELLED_RESPONSE = { ...video, status: 'cancelled', completed_at: UNIX + 12 };

const imageTask = {
  id: 'imgtask_mx530gz4anFxuaX1M38mn149',
  status: 'queued',
  model: 'seedream',
  created_at: UNIX,
  completed_at: null,
  progress: 0,
  object: 'image.task',
  n: 1,
  size: '1024x1024',
};

const imageTaskDone = {
  ...imageTask,
  status: 'succeeded',
  completed_at: UNIX + 8,
  progress: 100,
  charged_micro_usd: 40_000,
  usage: { images: 1 },
  stored_url: SIGNED_LINK,
  stored_urls: [SIGNED_LINK],
  provider_url: 'https://cdn.provider.example/results/cgt-20260131120000-3f1140c.0.png',
  provider_urls: ['https://cdn.provider.example/results/cgt-20260131120000-3f1140c.0.png'],
};

export const IMAGE_TASK_CREATE_EXAMPLES = {
  request: { model: 'seedream', prompt: 'A lighthouse at dawn, watercolour', n: 1, size: '1024x1024' },
  response: imageTask,
};
export const IMAGE_TASK_RESPONSE = imageTaskDone;
export const IMAGE_TASKS_RESPONSE = list(imageTaskDone);
export const IMAGE_TASK_CANCELLED_RESPONSE = { ...imageTask, status: 'cancelled', completed_at: UNIX + 3 };
