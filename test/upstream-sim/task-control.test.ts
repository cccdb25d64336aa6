import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startUpstreamSim, type SimStats, type SimTaskView, type UpstreamSim } from '../../tools/upstream-sim/index.js';
import { contentBody, createContentTask, getContentTask, json, postJson } from './task-helpers.js';

let sim: UpstreamSim;

beforeAll(async () => {
  sim = await startUpstreamSim();
});
afterAll(() => sim.close());
beforeEach(async () => {
  sim.setDefaults({ taskRunMs: 60_000 });
  sim.resetStats();
  await fetch(`${sim.url}/_sim/tasks`, { method: 'DELETE' });
});

const put = (path: string, body: unknown): Promise<Response> =>
  fetch(`${sim.url}${path}`, { method: 'PUT', body: JSON.stringify(body) });
const listTasks = async (): Promise<SimTaskView[]> =>
  (await json<{ data: SimTaskView[] }>(await fetch(`${sim.url}/_sim/tasks`))).data;

describe('task control API', () => {
  it('GET /_sim/tasks lists both protocols with their status', async () => {
    const contentId = await createContentTask(sim.url, contentBody('x'), { 'idempotency-key': 'k1' });
    const video = await json<{ id: string }>(await postJson(`${sim.url}/v1/videos`, { prompt: 'y' }));
    const tasks = await listTasks();
    expect(tasks).toHaveLength(2);
    expect(tasks[0]).toMatchObject({
      id: contentId,
      protocol: 'content-tasks',
      kind: 'video',
      model: 'vid-sim',
      status: 'queued',
      idempotencyKey: 'k1',
      polls: 0,
      resultUrls: [],
      error: null,
      finishedAt: null,
    });
    expect(tasks[1]).toMatchObject({ id: video.id, protocol: 'openai-videos', idempotencyKey: null });
    expect(sim.tasks().map((task) => task.id)).toEqual([contentId, video.id]);
  });

  it('POST /_sim/tasks/{id}/finish succeeds a task at once', async () => {
    const id = await createContentTask(sim.url, contentBody('slow'));
    const res = await fetch(`${sim.url}/_sim/tasks/${id}/finish`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id,
      status: 'succeeded',
      resultUrls: [`${sim.url}/_sim/files/${id}.mp4`],
    });
    expect(await getContentTask(sim.url, id)).toMatchObject({ status: 'succeeded', progress: 100 });
    expect((await fetch(`${sim.url}/_sim/files/${id}.mp4`)).status).toBe(200);
  });

  it('POST /_sim/tasks/{id}/fail fails a task with the given error', async () => {
    const video = await json<{ id: string }>(await postJson(`${sim.url}/v1/videos`, { prompt: 'y' }));
    const res = await postJson(`${sim.url}/_sim/tasks/${video.id}/fail`, {
      code: 'moderation_blocked',
      message: 'nope',
    });
    expect(await res.json()).toMatchObject({
      status: 'failed',
      error: { code: 'moderation_blocked', message: 'nope' },
    });
    const seen = await json(await fetch(`${sim.url}/v1/videos/${video.id}`));
    expect(seen).toMatchObject({ status: 'failed', error: { code: 'moderation_blocked', message: 'nope' } });
  });

  it('finishTask / failTask do the same in-process', async () => {
    const a = await createContentTask(sim.url, contentBody('a'));
    const b = await createContentTask(sim.url, contentBody('b'));
    expect(sim.finishTask(a).status).toBe('succeeded');
    expect(sim.failTask(b).error).toMatchObject({ code: 'sim_task_failed' });
    expect(() => sim.finishTask('cgt-none')).toThrow(/no task/);
  });

  it('answers 404 for an unknown task and unknown actions', async () => {
    expect((await fetch(`${sim.url}/_sim/tasks/cgt-none/finish`, { method: 'POST' })).status).toBe(404);
    const id = await createContentTask(sim.url, contentBody('x'));
    expect((await fetch(`${sim.url}/_sim/tasks/${id}/explode`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${sim.url}/_sim/tasks/${id}`)).status).toBe(200);
  });

  it('DELETE /_sim/tasks forgets every task', async () => {
    await createContentTask(sim.url, contentBody('x'));
    expect((await fetch(`${sim.url}/_sim/tasks`, { method: 'DELETE' })).status).toBe(204);
    expect(await listTasks()).toEqual([]);
  });
});

describe('task settings', () => {
  it('PUT /_sim/models/{name} sets task behaviour per model, fixed when a task is created', async () => {
    expect((await put('/_sim/models/vid-fast', { taskQueuedMs: 0, taskRunMs: 0, resultBytes: 10 })).status).toBe(200);
    const id = await createContentTask(sim.url, contentBody('x', { model: 'vid-fast' }));
    await put('/_sim/models/vid-fast', { taskFault: 'fail' });
    const task = await getContentTask(sim.url, id);
    expect(task.status).toBe('succeeded');
    expect((await (await fetch(task.content!.video_url!)).arrayBuffer()).byteLength).toBe(10);
  });

  it.each([
    [
      { taskFault: 'explode' },
      'sim setting taskFault must be one of none, fail, submit500, submit429, hang, pollError500',
    ],
    [{ pollErrorEvery: 0 }, 'sim setting pollErrorEvery must be at least 1'],
    [{ resultBytes: 1.5 }, 'sim setting resultBytes must be a whole number'],
    [{ taskRunMs: -1 }, 'sim setting taskRunMs must be a non-negative number'],
  ])('rejects %j', async (behaviour, message) => {
    const res = await put('/_sim/defaults', behaviour);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { message } });
  });

  it('GET /_sim/stats carries the task counters per protocol', async () => {
    const id = await createContentTask(sim.url, contentBody('x'));
    await getContentTask(sim.url, id);
    await fetch(`${sim.url}/api/v3/contents/generations/tasks/${id}`, { method: 'DELETE' });
    const stats = await json<SimStats>(await fetch(`${sim.url}/_sim/stats`));
    expect(stats.tasks['content-tasks']).toEqual({
      taskCreates: 1,
      taskCreateRequests: 1,
      taskPolls: 1,
      taskCancels: 1,
      resultDownloads: 0,
    });
    expect(stats).toMatchObject({ requests: 3, byModel: { 'vid-sim': 1 } });
  });
});
