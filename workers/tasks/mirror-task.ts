import type { Job } from 'bullmq';
import { advanceTask, findTask } from '../../shared/db/tasks.js';
import { jobId } from '../../shared/jobs/catalog.js';
import { enqueueStageJob, lastAttempt, providerOf, type TaskJobServices } from './task-steps.js';

const EXTENSIONS: Record<string, string> = {
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

/**
 * Streams the provider's result into the gateway's object store (multipart for S3: never the whole
 * file in memory), so `stored_url` keeps working after the provider's link expires. When every
 * attempt fails the task still succeeds, with `provider_url` only. The task stays `running` here:
 * it reads `succeeded` once settle has charged it (settle-task.ts).
 */
export async function mirrorTask(s: TaskJobServices, job: Job<{ taskId: string }>): Promise<string> {
  const task = await findTask(s.db, job.data.taskId);
  if (task && task.stage !== 'mirror') {
    await enqueueStageJob(s, task);
    return 'nothing to do';
  }
  if (!task?.upstream_id) return 'nothing to do';
  const { upstream, provider } = providerOf(s, task);
  const urls = task.provider_urls?.length ? task.provider_urls : [undefined];
  const keys: string[] = [];
  let size = 0;
  try {
    for (const [index, url] of urls.entries()) {
      const result = await provider.download(upstream, task.upstream_id, index, url);
      const type = result.contentType.split(';')[0]!.trim().toLowerCase();
      const key = `tasks/${task.user_id}/${task.id}/${index}.${EXTENSIONS[type] ?? 'bin'}`;
      const stored = await s.storage.put(key, result.body, {
        contentType: type,
        ...(result.size === undefined ? {} : { contentLength: result.size }),
      });
      keys.push(key);
      size += stored.size;
    }
  } catch (err) {
    if (!lastAttempt(job)) throw err;
    s.log.warn(
      { taskId: task.id, err: (err as Error).message },
      'mirroring failed for good; the task keeps its provider_url',
    );
  }
  const mirrored = keys.length === urls.length;
  const moved = await advanceTask(s.db, task.id, ['mirror'], {
    stage: 'settle',
    ...(mirrored ? { stored_keys: keys, result_size: size } : {}),
  });
  if (moved) await s.jobs.enqueue('task-settle', { taskId: task.id }, { jobId: jobId('task-settle', task.id) });
  return mirrored ? 'mirrored' : 'provider url only';
}
