import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/http.js';
import { spawnLogged, type LoggedProcess } from '../support/logged-process.js';
import {
  createVideo,
  startTaskGateway,
  VIDEO_UPSTREAM,
  videoBody,
  workerEnv,
  writeTaskCatalogFile,
  type TaskGateway,
} from '../support/task-gateway.js';

// The signals to scale on, scraped from /metrics of real processes: the API process's own port
// (METRICS_PORT) with in-flight requests and the queue gauges (the oldest waiting job's age), a
// worker's with its concurrency in use. Never on the public API port.
let gw: TaskGateway;
let apiProcess: LoggedProcess;
let env: Record<string, string>;
let removeCatalog: () => Promise<void>;

beforeAll(async () => {
  gw = await startTaskGateway({ workers: false });
  const catalog = await writeTaskCatalogFile(gw.sim.url);
  removeCatalog = catalog.remove;
  env = workerEnv(gw, catalog.file);
  apiProcess = await spawnLogged('api', env);
});

afterAll(async () => {
  await apiProcess?.stop();
  await removeCatalog?.();
  await gw?.close();
});

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

/** The value of one sample, e.g. `gateway_queue_oldest_waiting_seconds{queue="task-submit"}`. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  return undefined;
}

describe('/metrics of the API process', () => {
  it('is served on METRICS_PORT, not on the public port', async () => {
    expect((await fetch(`${apiProcess.url}/metrics`)).status).toBe(404);
    const text = await scrape(apiProcess.metricsUrl);
    expect(text).toContain('# TYPE gateway_http_requests_in_flight gauge');
    expect(text).toContain('# TYPE gateway_queue_oldest_waiting_seconds gauge');
  });

  it('counts the requests in flight', async () => {
    const { key } = await gw.account({ balance: 10_000_000 });
    gw.sim.setDefaults({ fault: 'hang' });
    const abort = new AbortController();
    const hung = fetch(`${apiProcess.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-sim', messages: [{ role: 'user', content: 'wait' }] }),
      signal: abort.signal,
    }).catch(() => undefined);
    try {
      await waitUntil(
        async () => (sample(await scrape(apiProcess.metricsUrl), 'gateway_http_requests_in_flight') ?? 0) >= 1,
        15_000,
      );
    } finally {
      abort.abort();
      await hung;
      gw.sim.setDefaults({ fault: 'none' });
    }
    await waitUntil(
      async () => sample(await scrape(apiProcess.metricsUrl), 'gateway_http_requests_in_flight') === 0,
      15_000,
    );
  });

  it('per queue: jobs waiting and the age of the oldest, which grows while no worker takes it', async () => {
    const { key } = await gw.account({ balance: 10_000_000 });
    const created = await createVideo({ ...gw, url: apiProcess.url }, key, videoBody('queued'));
    expect(created.status).toBe(200);
    const series = 'gateway_queue_oldest_waiting_seconds{queue="task-submit"}';
    const first = sample(await scrape(apiProcess.metricsUrl), series)!;
    expect(first).toBeGreaterThanOrEqual(0);
    const text = await scrape(apiProcess.metricsUrl);
    expect(sample(text, 'gateway_queue_jobs{queue="task-submit",state="waiting"}')).toBeGreaterThanOrEqual(1);
    // Ages grow with the clock: wait for a later scrape to read more.
    await waitUntil(async () => sample(await scrape(apiProcess.metricsUrl), series)! > first + 0.2, 15_000);
    expect(sample(text, 'gateway_queue_oldest_waiting_seconds{queue="task-poll"}')).toBe(0);
  });
});

describe('/metrics of a worker', () => {
  it('reports its concurrency in use per queue, and the waiting job is taken', async () => {
    // Task creates hang at the upstream: the submit job stays running in the worker.
    gw.sim.setModel(VIDEO_UPSTREAM, { taskFault: 'hang' });
    const worker = await spawnLogged('worker', {
      ...env,
      WORKER_QUEUES: 'task-submit',
      WORKER_CONCURRENCY: 'task-submit=7',
    });
    try {
      const active = 'gateway_worker_jobs_active{queue="task-submit"}';
      await waitUntil(async () => (sample(await scrape(worker.metricsUrl), active) ?? 0) >= 1, 20_000);
      const text = await scrape(worker.metricsUrl);
      expect(sample(text, 'gateway_worker_concurrency{queue="task-submit"}')).toBe(7);
      await waitUntil(
        async () =>
          sample(await scrape(apiProcess.metricsUrl), 'gateway_queue_oldest_waiting_seconds{queue="task-submit"}') ===
          0,
        20_000,
      );
    } finally {
      await worker.stop();
      gw.sim.setModel(VIDEO_UPSTREAM, {});
    }
  });
});
