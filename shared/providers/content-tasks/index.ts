import { callJson, streamResult } from '../tasks/http.js';
import {
  UpstreamTaskError,
  type TaskProvider,
  type TaskSnapshot,
  type TaskToSubmit,
  type UpstreamTaskStatus,
} from '../tasks/task-provider.js';

const TASKS = '/contents/generations/tasks';

interface ContentTask {
  id: string;
  status: string;
  progress?: number;
  content?: { video_url?: string; image_url?: string; image_urls?: string[] };
  usage?: Record<string, unknown>;
  error?: { code?: string; message?: string };
}

const STATUSES: Record<string, UpstreamTaskStatus> = {
  queued: 'queued',
  running: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** The create body: the gateway's request, on the upstream model. */
function createBody(task: TaskToSubmit): Record<string, unknown> {
  const r = task.request;
  if (task.kind === 'image') {
    return {
      model: task.upstreamModel,
      kind: 'image',
      content: [{ type: 'text', text: r.prompt }],
      n: r.n,
      size: r.size,
    };
  }
  return {
    model: task.upstreamModel,
    content: r.content,
    duration: r.duration,
    resolution: r.resolution,
    generate_audio: r.generate_audio,
  };
}

/** `content-tasks`: an asynchronous content-generation task API (create, get, cancel/delete). */
export const contentTasks: TaskProvider = {
  async create(upstream, task) {
    const { body } = await callJson<{ id?: string }>(upstream, {
      method: 'POST',
      path: TASKS,
      body: createBody(task),
      headers: { 'idempotency-key': task.id },
    });
    if (!body?.id) throw new UpstreamTaskError(502, true, 'upstream created no task id');
    return { upstreamId: body.id };
  },

  async get(upstream, upstreamId) {
    const { body } = await callJson<ContentTask>(upstream, {
      method: 'GET',
      path: `${TASKS}/${encodeURIComponent(upstreamId)}`,
    });
    if (!body) return undefined;
    const c = body.content ?? {};
    const snapshot: TaskSnapshot = {
      status: STATUSES[body.status] ?? 'running',
      progress: body.progress,
      resultUrls: c.video_url ? [c.video_url] : (c.image_urls ?? (c.image_url ? [c.image_url] : [])),
      usage: body.usage,
      error: body.error
        ? { code: body.error.code ?? 'upstream_failed', message: body.error.message ?? 'the upstream task failed' }
        : undefined,
    };
    return snapshot;
  },

  async cancel(upstream, upstreamId) {
    await callJson(upstream, { method: 'DELETE', path: `${TASKS}/${encodeURIComponent(upstreamId)}` });
  },

  async download(upstream, _upstreamId, _index, url) {
    if (!url) throw new UpstreamTaskError(502, false, 'the upstream task has no result URL');
    return streamResult(upstream, url);
  },
};
