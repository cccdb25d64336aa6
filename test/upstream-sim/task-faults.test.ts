import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startUpstreamSim, type UpstreamSim } from '../../tools/upstream-sim/index.js';
import { contentBody, json, postJson, TASKS_BASE } from './task-helpers.js';

let sim: UpstreamSim;

beforeAll(async () => {
  sim = await startUpstreamSim();
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.resetStats();
  sim.setDefaults({});
});

const createContent = (text: string, headers: Record<string, string> = {}, init: RequestInit = {}): Promise<Response> =>
  postJson(`${sim.url}${TASKS_BASE}`, contentBody(text), headers, init);
const createVideo = (prompt: string, headers: Record<string, string> = {}): Promise<Response> =>
  postJson(`${sim.url}/v1/videos`, { prompt }, headers);
const counters = () => sim.stats().tasks;

describe('submit faults', () => {
  it('submit500 and submit429 refuse the create and make no task', async () => {
    const failed = await createContent('[[sim:taskFault=submit500]]');
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ error: { code: 'InternalServiceError' } });
    const limited = await createVideo('[[sim:taskFault=submit429,retryAfterSeconds=4]]');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('4');
    expect(await limited.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    expect(counters()['content-tasks']).toMatchObject({ taskCreateRequests: 1, taskCreates: 0 });
    expect(counters()['openai-videos']).toMatchObject({ taskCreateRequests: 1, taskCreates: 0 });
  });

  it('hang makes the task but never answers; a retry with the same key gets that task', async () => {
    const key = { 'idempotency-key': 'hang-1' };
    const hung = createContent('[[sim:taskFault=hang]]', key, { signal: AbortSignal.timeout(200) });
    await expect(hung).rejects.toMatchObject({ name: 'TimeoutError' });
    const task = sim.tasks().find((t) => t.idempotencyKey === 'hang-1');
    expect(task).toMatchObject({ protocol: 'content-tasks', idempotencyKey: 'hang-1' });
    const retry = await createContent('[[sim:taskFault=hang]]', key);
    expect(await retry.json()).toEqual({ id: task!.id });
    expect(counters()['content-tasks']).toMatchObject({ taskCreateRequests: 2, taskCreates: 1 });
  });

  it('pollError500 fails every Nth read of a task', async () => {
    const { id } = await json<{ id: string }>(await createContent('[[sim:taskFault=pollError500,pollErrorEvery=3]]'));
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await fetch(`${sim.url}${TASKS_BASE}/${id}`)).status);
    expect(statuses).toEqual([200, 200, 500, 200, 200, 500]);
    expect(counters()['content-tasks'].taskPolls).toBe(6);
  });

  it('latencyMs delays the create answer, not the task', async () => {
    const started = performance.now();
    const res = await createVideo('[[sim:latencyMs=80]] slow');
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    expect(res.status).toBe(200);
  });
});

describe('idempotent creates', () => {
  it.each([
    ['content-tasks', (key: string) => createContent('same', { 'idempotency-key': key })],
    ['openai-videos', (key: string) => createVideo('same', { 'idempotency-key': key })],
  ] as const)('%s: 20 concurrent creates with one key make one task', async (protocol, create) => {
    const bodies = await Promise.all(Array.from({ length: 20 }, async () => (await create('k-20')).json()));
    // A replay answers the task as it is now (a video object's status may have moved on): same id.
    expect(new Set(bodies.map((body) => (body as { id: string }).id)).size).toBe(1);
    expect(counters()[protocol]).toMatchObject({ taskCreateRequests: 20, taskCreates: 1 });
    await create('k-other');
    expect(counters()[protocol].taskCreates).toBe(2);
  });

  it('keys are scoped per protocol, and a deleted task still answers its key', async () => {
    const content = await json<{ id: string }>(await createContent('x', { 'idempotency-key': 'shared' }));
    const video = await json<{ id: string }>(await createVideo('x', { 'idempotency-key': 'shared' }));
    expect(video.id).not.toBe(content.id);
    await fetch(`${sim.url}/v1/videos/${video.id}`, { method: 'DELETE' });
    expect(await json(await createVideo('x', { 'idempotency-key': 'shared' }))).toMatchObject({ id: video.id });
    expect(counters()['openai-videos']).toMatchObject({ taskCreates: 1, taskCancels: 1 });
  });

  it('creates without a key always make new tasks', async () => {
    await Promise.all([createContent('a'), createContent('a')]);
    expect(counters()['content-tasks'].taskCreates).toBe(2);
  });
});

describe('real clock', () => {
  it('runs a task to success on the default timings (50 ms queued, 200 ms running)', async () => {
    const { id } = await json<{ id: string }>(await createContent('real time'));
    const status = async (): Promise<unknown> => (await json(await fetch(`${sim.url}${TASKS_BASE}/${id}`))).status;
    expect(await status()).toBe('queued');
    await vi.waitFor(async () => expect(await status()).toBe('running'), { interval: 10 });
    await vi.waitFor(async () => expect(await status()).toBe('succeeded'), { interval: 20, timeout: 2000 });
  });
});
