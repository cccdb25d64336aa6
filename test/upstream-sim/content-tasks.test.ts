import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resultBytes, startUpstreamSim, type UpstreamSim } from '../../tools/upstream-sim/index.js';
import {
  contentBody,
  createContentTask,
  getContentTask,
  json,
  ManualClock,
  postJson,
  TASKS_BASE,
} from './task-helpers.js';

let sim: UpstreamSim;
const clock = new ManualClock();

beforeAll(async () => {
  sim = await startUpstreamSim({ now: clock.now });
});
afterAll(() => sim.close());
beforeEach(() => sim.setDefaults({ taskQueuedMs: 1000, taskRunMs: 10_000, progressSteps: 10 }));

describe('content-tasks lifecycle', () => {
  it('goes queued → running with stepped progress → succeeded with a downloadable video', async () => {
    const body = contentBody('a cat surfing', {
      content: [
        { type: 'text', text: 'a cat surfing' },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png' }, role: 'first_frame' },
      ],
      duration: 4,
      resolution: '480p',
      generate_audio: true,
    });
    const created = await postJson(`${sim.url}${TASKS_BASE}`, body);
    expect(created.status).toBe(200);
    const { id } = await json<{ id: string }>(created);
    expect(Object.keys(await getContentTask(sim.url, id))).not.toContain('content');
    expect(await getContentTask(sim.url, id)).toMatchObject({ id, model: 'vid-sim', status: 'queued', progress: 0 });
    clock.advance(1000 + 3500);
    const running = await getContentTask(sim.url, id);
    expect(running).toMatchObject({
      status: 'running',
      progress: 30,
      duration: 4,
      resolution: '480p',
      generate_audio: true,
    });
    expect(running.updated_at).toBe(running.created_at + 1);
    clock.advance(6500);
    const done = await getContentTask(sim.url, id);
    // 864 × 480 × 24 fps × 4 s / 1024
    expect(done).toMatchObject({
      status: 'succeeded',
      progress: 100,
      usage: { completion_tokens: 38_880, total_tokens: 38_880, duration_seconds: 4 },
      content: { video_url: `${sim.url}/_sim/files/${id}.mp4` },
    });
    const video = await fetch(done.content!.video_url!);
    expect(video.status).toBe(200);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await video.arrayBuffer());
    expect(bytes.length).toBe(64 * 1024);
    expect(bytes.subarray(4, 8).toString()).toBe('ftyp');
    expect(bytes.equals(resultBytes(id, 'video', 0, 64 * 1024))).toBe(true);
  });

  it('ends failed with an error under taskFault=fail, and serves no result', async () => {
    const id = await createContentTask(sim.url, contentBody('[[sim:taskFault=fail]] doomed'));
    clock.advance(11_000);
    const task = await getContentTask(sim.url, id);
    expect(task).toMatchObject({ status: 'failed', error: { code: 'sim_task_failed', message: expect.any(String) } });
    expect(task.content).toBeUndefined();
    expect(task.usage).toBeUndefined();
    expect((await fetch(`${sim.url}/_sim/files/${id}.mp4`)).status).toBe(404);
  });

  it('makes image tasks for img* models: n PNGs and usage in images', async () => {
    sim.setModel('img-sim', { resultBytes: 1000 });
    const id = await createContentTask(sim.url, contentBody('three cats', { model: 'img-sim', n: 3 }));
    clock.advance(11_000);
    const task = await getContentTask(sim.url, id);
    expect(task).toMatchObject({ status: 'succeeded', usage: { images: 3 } });
    expect(task.content?.image_urls).toEqual([0, 1, 2].map((i) => `${sim.url}/_sim/files/${id}.${i}.png`));
    const image = await fetch(task.content!.image_urls![2]!);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).equals(resultBytes(`${id}.2`, 'image', 0, 1000))).toBe(true);
    expect((await fetch(`${sim.url}/_sim/files/${id}.3.png`)).status).toBe(404);
  });
});

describe('content-tasks cancel and delete', () => {
  it('DELETE cancels a running task, which stays readable; a second DELETE removes it', async () => {
    const id = await createContentTask(sim.url, contentBody('long one'));
    clock.advance(2000);
    const del = await fetch(`${sim.url}${TASKS_BASE}/${id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({});
    clock.advance(60_000);
    expect(await getContentTask(sim.url, id)).toMatchObject({ status: 'cancelled', progress: 10 });
    expect((await fetch(`${sim.url}${TASKS_BASE}/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${sim.url}${TASKS_BASE}/${id}`)).status).toBe(404);
  });

  it('DELETE of a finished task removes it and its result', async () => {
    const id = await createContentTask(sim.url, contentBody('done soon'));
    clock.advance(11_000);
    expect((await fetch(`${sim.url}${TASKS_BASE}/${id}`, { method: 'DELETE' })).status).toBe(200);
    const gone = await fetch(`${sim.url}${TASKS_BASE}/${id}`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: { code: 'ResourceNotFound' } });
    expect((await fetch(`${sim.url}/_sim/files/${id}.mp4`)).status).toBe(404);
  });
});

describe('content-tasks requests', () => {
  it.each([
    [{ content: [{ type: 'text', text: 'x' }] }, 'model'],
    [{ model: 'vid-sim', content: [] }, 'content'],
    [contentBody('x', { content: [{ type: 'video', text: 'x' }] }), 'content[0].type'],
    [
      contentBody('x', { content: [{ type: 'image_url', image_url: { url: 'u' }, role: 'middle' }] }),
      'content[0].role',
    ],
    [contentBody('x', { duration: 2.5 }), 'duration'],
    [contentBody('x', { resolution: '4k' }), 'resolution'],
    [contentBody('[[sim:taskFault=explode]]'), 'content'],
  ])('rejects %j naming %s', async (body, param) => {
    const res = await postJson(`${sim.url}${TASKS_BASE}`, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'InvalidParameter', param, type: 'BadRequest' } });
  });

  it('accepts any base path in front of the protocol paths', async () => {
    expect((await postJson(`${sim.url}/contents/generations/tasks`, contentBody('x'))).status).toBe(200);
    expect((await postJson(`${sim.url}/proxy/ark/api/v3/contents/generations/tasks`, contentBody('x'))).status).toBe(
      200,
    );
  });

  it('requires the bearer key when one is configured', async () => {
    const locked = await startUpstreamSim({ apiKey: 'k1' });
    try {
      const missing = await postJson(`${locked.url}${TASKS_BASE}`, contentBody('x'));
      expect(missing.status).toBe(401);
      expect(await missing.json()).toMatchObject({ error: { code: 'AuthenticationError' } });
      const id = await createContentTask(locked.url, contentBody('x'), { authorization: 'Bearer k1' });
      expect(
        (await fetch(`${locked.url}${TASKS_BASE}/${id}`, { headers: { authorization: 'Bearer no' } })).status,
      ).toBe(401);
      expect((await getContentTask(locked.url, id, { authorization: 'Bearer k1' })).id).toBe(id);
    } finally {
      await locked.close();
    }
  });
});
