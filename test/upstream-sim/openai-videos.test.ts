import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resultBytes, startUpstreamSim, type UpstreamSim } from '../../tools/upstream-sim/index.js';
import { json, ManualClock, postJson } from './task-helpers.js';

let sim: UpstreamSim;
let client: OpenAI;
const clock = new ManualClock();

beforeAll(async () => {
  sim = await startUpstreamSim({ now: clock.now, apiKey: 'sk-sim' });
  client = new OpenAI({ apiKey: 'sk-sim', baseURL: `${sim.url}/v1`, maxRetries: 0 });
});
afterAll(() => sim.close());
beforeEach(() => sim.setDefaults({ taskQueuedMs: 1000, taskRunMs: 8000, progressSteps: 4, resultBytes: 4096 }));

const auth = { authorization: 'Bearer sk-sim' };

describe('openai-videos through the official client (multipart create)', () => {
  it('queued → in_progress → completed, then the MP4 downloads', async () => {
    const created = await client.videos.create({
      model: 'sora-2',
      prompt: 'a fox at dawn',
      seconds: '8',
      size: '1280x720',
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^video_[0-9a-f]{32}$/),
      object: 'video',
      model: 'sora-2',
      status: 'queued',
      progress: 0,
      created_at: Math.floor(clock.ms / 1000),
      completed_at: null,
      expires_at: null,
      error: null,
      prompt: 'a fox at dawn',
      remixed_from_video_id: null,
      seconds: '8',
      size: '1280x720',
    });
    await expect(client.videos.downloadContent(created.id)).rejects.toMatchObject({ status: 404 });
    clock.advance(1000 + 4000);
    expect(await client.videos.retrieve(created.id)).toMatchObject({ status: 'in_progress', progress: 50 });
    clock.advance(4000);
    const done = await client.videos.retrieve(created.id);
    expect(done).toMatchObject({
      status: 'completed',
      progress: 100,
      completed_at: Math.floor(clock.ms / 1000),
      expires_at: Math.floor(clock.ms / 1000) + 3600,
    });
    const content = await client.videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await content.arrayBuffer()).equals(resultBytes(created.id, 'video', 0, 4096))).toBe(true);
    expect(sim.stats().tasks['openai-videos']).toMatchObject({ taskCreates: 1, resultDownloads: 1 });
  });

  it('applies the defaults the API documents: sora-2, 4 seconds, 720x1280', async () => {
    const created = await client.videos.create({ prompt: 'defaults' });
    expect(created).toMatchObject({ model: 'sora-2', seconds: '4', size: '720x1280' });
    expect(sim.stats().lastHeaders?.['content-type']).toMatch(/^multipart\/form-data/);
  });

  it('deletes a video in any state; it is gone afterwards', async () => {
    const video = await client.videos.create({ prompt: 'short-lived' });
    expect(await client.videos.delete(video.id)).toEqual({ id: video.id, object: 'video.deleted', deleted: true });
    await expect(client.videos.retrieve(video.id)).rejects.toMatchObject({ status: 404 });
  });

  it('lists videos newest first', async () => {
    const a = await client.videos.create({ prompt: 'first' });
    const b = await client.videos.create({ prompt: 'second' });
    const page = await client.videos.list({ limit: 2 });
    expect(page.data.map((v) => v.id)).toEqual([b.id, a.id]);
  });
});

describe('openai-videos over raw HTTP (JSON create)', () => {
  it('accepts a JSON body and reports failure with an error object', async () => {
    const res = await postJson(
      `${sim.url}/v1/videos`,
      { model: 'sora-2-pro', prompt: '[[sim:taskFault=fail]] no' },
      auth,
    );
    expect(res.status).toBe(200);
    const { id } = await json<{ id: string }>(res);
    clock.advance(10_000);
    const failed = await json(await fetch(`${sim.url}/v1/videos/${id}`, { headers: auth }));
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'sim_task_failed' }, completed_at: null });
    const content = await fetch(`${sim.url}/v1/videos/${id}/content`, { headers: auth });
    expect(content.status).toBe(404);
    expect(await content.json()).toMatchObject({ error: { code: 'video_not_ready' } });
  });

  it.each([
    [{ model: 'sora-2' }, 'prompt'],
    [{ prompt: 'x', seconds: 8 }, 'seconds'],
    [{ prompt: 'x', seconds: '5' }, 'seconds'],
    [{ prompt: 'x', size: '640x480' }, 'size'],
    [{ prompt: '[[sim:taskRunMs=soon]]' }, 'prompt'],
  ])('rejects %j naming %s', async (body, param) => {
    const res = await postJson(`${sim.url}/v1/videos`, body, auth);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', param } });
  });

  it('answers 401 without the key and 404 for an unknown video', async () => {
    expect((await postJson(`${sim.url}/v1/videos`, { prompt: 'x' })).status).toBe(401);
    const missing = await fetch(`${sim.url}/v1/videos/video_nope`, { headers: auth });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'video_not_found' } });
  });
});
