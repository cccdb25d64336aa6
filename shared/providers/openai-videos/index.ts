import { callJson, streamResult } from '../tasks/http.js';
import { UpstreamTaskError, type TaskProvider, type UpstreamTaskStatus } from '../tasks/task-provider.js';

interface VideoObject {
  id: string;
  status: string;
  progress?: number;
  error?: { code?: string; message?: string } | null;
  seconds?: string;
  size?: string;
}

const STATUSES: Record<string, UpstreamTaskStatus> = {
  queued: 'queued',
  in_progress: 'running',
  completed: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
};

// The gateway names resolutions; the OpenAI videos API takes a frame size.
const SIZES: Record<string, string> = { '480p': '854x480', '720p': '1280x720', '1080p': '1920x1080' };

/**
 * `openai-videos`: an OpenAI-style videos API. The result is fetched from `/videos/{id}/content`
 * with the provider's credentials, so it has no public provider_url.
 */
export const openAiVideos: TaskProvider = {
  async create(upstream, task) {
    const r = task.request as { content?: { type: string; text?: string }[]; duration?: number; resolution?: string };
    const prompt = (r.content ?? [])
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('\n');
    const body = {
      model: task.upstreamModel,
      prompt,
      ...(r.duration === undefined ? {} : { seconds: String(r.duration) }),
      ...(r.resolution === undefined ? {} : { size: SIZES[r.resolution] ?? r.resolution }),
    };
    const { body: created } = await callJson<VideoObject>(upstream, {
      method: 'POST',
      path: '/videos',
      body,
      headers: { 'idempotency-key': task.id },
    });
    if (!created?.id) throw new UpstreamTaskError(502, true, 'upstream created no video id');
    return { upstreamId: created.id };
  },

  async get(upstream, upstreamId) {
    const { body } = await callJson<VideoObject>(upstream, {
      method: 'GET',
      path: `/videos/${encodeURIComponent(upstreamId)}`,
    });
    if (!body) return undefined;
    return {
      status: STATUSES[body.status] ?? 'running',
      progress: body.progress,
      resultUrls: [],
      usage: body.seconds ? { seconds: Number(body.seconds) } : undefined,
      error: body.error
        ? { code: body.error.code ?? 'upstream_failed', message: body.error.message ?? 'the upstream video failed' }
        : undefined,
    };
  },

  async cancel(upstream, upstreamId) {
    await callJson(upstream, { method: 'DELETE', path: `/videos/${encodeURIComponent(upstreamId)}` });
  },

  async download(upstream, upstreamId) {
    return streamResult(upstream, `${upstream.basePath}/videos/${encodeURIComponent(upstreamId)}/content`);
  },
};
