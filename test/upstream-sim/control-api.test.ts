import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startUpstreamSim, type SimStats, type UpstreamSim } from '../../tools/upstream-sim/index.js';
import { chatBody, postChat } from './helpers.js';

let sim: UpstreamSim;

beforeAll(async () => {
  sim = await startUpstreamSim({ models: { 'broken-model': { fault: 'error500' } } });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.resetStats();
  sim.setDefaults({});
});

const put = (path: string, body: unknown): Promise<Response> =>
  fetch(`${sim.url}${path}`, { method: 'PUT', body: JSON.stringify(body) });
const remoteStats = async (): Promise<SimStats> => (await fetch(`${sim.url}/_sim/stats`)).json() as Promise<SimStats>;

describe('stats', () => {
  it('counts requests per model and keeps the last body and headers', async () => {
    await postChat(sim.url, chatBody('a', { model: 'm1' }));
    await postChat(sim.url, chatBody('b', { model: 'm1' }));
    await postChat(sim.url, chatBody('c', { model: 'm2' }), { headers: { 'x-trace': 't-3' } });
    await fetch(`${sim.url}/_sim/stats`); // control calls are not counted
    const stats = sim.stats();
    expect(stats).toMatchObject({ requests: 3, byModel: { m1: 2, m2: 1 } });
    expect(stats.lastRequestBody).toEqual(chatBody('c', { model: 'm2' }));
    expect(stats.lastHeaders?.['x-trace']).toBe('t-3');
  });

  it('tracks concurrent requests in flight', async () => {
    const calls = Array.from({ length: 5 }, () => postChat(sim.url, chatBody('[[sim:latencyMs=100]]')));
    await vi.waitFor(() => expect(sim.stats().inFlight).toBe(5));
    await Promise.all(calls);
    await vi.waitFor(() => expect(sim.stats().inFlight).toBe(0));
    expect(sim.stats().maxInFlight).toBe(5);
  });
});

describe('behaviour configuration', () => {
  it('applies per-model settings, which directives override', async () => {
    expect((await postChat(sim.url, chatBody('hi', { model: 'broken-model' }))).status).toBe(500);
    expect((await postChat(sim.url, chatBody('[[sim:fault=none]]', { model: 'broken-model' }))).status).toBe(200);
    expect((await postChat(sim.url, chatBody('hi', { model: 'other' }))).status).toBe(200);
  });

  it('setDefaults changes every model without its own setting', async () => {
    sim.setDefaults({ outputTokens: 2 });
    const body = (await (await postChat(sim.url, chatBody('hi'))).json()) as { usage: { completion_tokens: number } };
    expect(body.usage.completion_tokens).toBe(2);
  });
});

describe('control API over HTTP', () => {
  it('GET /_sim/stats and POST /_sim/reset', async () => {
    await postChat(sim.url, chatBody('hi', { model: 'counted' }));
    expect(await remoteStats()).toMatchObject({ requests: 1, byModel: { counted: 1 }, inFlight: 0 });
    expect((await fetch(`${sim.url}/_sim/reset`, { method: 'POST' })).status).toBe(204);
    expect(await remoteStats()).toMatchObject({ requests: 0, byModel: {} });
  });

  it('PUT /_sim/models/{name} configures one model, slashes in the name included', async () => {
    const configured = await put('/_sim/models/vendor/limited', { fault: 'error429', retryAfterSeconds: 3 });
    expect(configured.status).toBe(200);
    const limited = await postChat(sim.url, chatBody('hi', { model: 'vendor/limited' }));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    await put('/_sim/models/vendor/limited', {});
    expect((await postChat(sim.url, chatBody('hi', { model: 'vendor/limited' }))).status).toBe(200);
  });

  it('PUT /_sim/defaults configures all models', async () => {
    expect((await put('/_sim/defaults', { outputTokens: 1 })).status).toBe(200);
    const body = (await (await postChat(sim.url, chatBody('hi'))).json()) as {
      choices: { message: { content: string } }[];
    };
    expect(body.choices[0]?.message.content).toBe('tok1 ');
  });

  it('rejects unknown or ill-typed settings with a 400', async () => {
    expect((await put('/_sim/defaults', { latencyMs: 'soon' })).status).toBe(400);
    const res = await put('/_sim/models/x', { speed: 1 });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { message: 'unknown sim setting speed' } });
  });
});

describe('lifecycle', () => {
  it('close() drops hung requests instead of waiting for them', async () => {
    const own = await startUpstreamSim();
    const hung = postChat(own.url, chatBody('[[sim:fault=hang]]'));
    await vi.waitFor(() => expect(own.stats().inFlight).toBe(1));
    await own.close();
    await expect(hung).rejects.toThrow();
  });
});
