// Mirroring streams: a 200 MiB result goes from the provider into S3 (multipart) through a worker
// process whose resident memory grows by less than 150 MiB, and stored_url serves it byte for byte.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resultBytes } from '../../tools/upstream-sim/index.js';
import { sleep } from '../support/http.js';
import {
  createVideo,
  readTask,
  rssOf,
  spawnWorker,
  startTaskGateway,
  videoBody,
  waitSettled,
  workerEnv,
  writeTaskCatalogFile,
  type TaskGateway,
  type WorkerProcess,
} from '../support/task-gateway.js';

const MiB = 1024 * 1024;
const SIZE = 200 * MiB;
let gw: TaskGateway;
let catalog: { file: string; remove(): Promise<void> };
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  // The API in this process; the task jobs only in the worker process measured.
  gw = await startTaskGateway({ workers: false });
  catalog = await writeTaskCatalogFile(gw.sim.url);
  worker = await spawnWorker(workerEnv(gw, catalog.file));
});
afterAll(async () => {
  await worker?.stop('SIGKILL');
  await gw?.close();
  await catalog?.remove();
});

/** sha256 of the simulator's file, generated 8 MiB at a time. */
function expectedDigest(name: string, size: number): string {
  const hash = createHash('sha256');
  for (let at = 0; at < size; at += 8 * MiB) hash.update(resultBytes(name, 'video', at, Math.min(8 * MiB, size - at)));
  return hash.digest('hex');
}

it('a 200 MiB result is mirrored with < 150 MiB worker RSS growth, and stored_url serves the exact bytes', {
  timeout: 120_000,
}, async () => {
  const a = await gw.account({ balance: 10_000_000 });
  // Warm up: one small task through every job, so the baseline includes the code and pools a mirror uses.
  const warm = await createVideo(gw, a.key, videoBody('[[sim:resultBytes=6000000]] warm-up'));
  expect((await waitSettled(gw, warm.json.id as string)).status).toBe('succeeded');
  await sleep(500);
  const baseline = await rssOf(worker!.pid);

  let peak = baseline;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rssOf(worker!.pid).catch(() => peak));
      await sleep(10);
    }
  })();
  const started = performance.now();
  const created = await createVideo(gw, a.key, videoBody(`[[sim:resultBytes=${SIZE}]] a very big file`));
  const id = created.json.id as string;
  let row: Awaited<ReturnType<typeof waitSettled>>;
  try {
    row = await waitSettled(gw, id, 90_000);
  } finally {
    sampling = false;
    await sampler;
  }
  const mirrorMs = performance.now() - started;
  expect(row.status).toBe('succeeded');
  expect(Number(row.result_size)).toBe(SIZE);
  expect(gw.sim.stats().tasks['content-tasks'].resultDownloads).toBe(2);
  const growth = peak - baseline;
  console.log(
    `mirror of 200 MiB: ${Math.round(mirrorMs)} ms, worker RSS ${Math.round(baseline / MiB)} → peak ${Math.round(peak / MiB)} MiB (+${Math.round(growth / MiB)} MiB)`,
  );
  expect(growth).toBeLessThan(150 * MiB);

  const view = (await readTask(gw, a.key, id)).json;
  const res = await fetch(view.stored_url as string);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-length')).toBe(String(SIZE));
  const hash = createHash('sha256');
  let length = 0;
  for await (const chunk of res.body!) {
    hash.update(chunk);
    length += chunk.length;
  }
  expect(length).toBe(SIZE);
  expect(hash.digest('hex')).toBe(expectedDigest(row.upstream_id!, SIZE));
  // The tail, by range, too (the last part of the multipart upload).
  const tail = await fetch(view.stored_url as string, { headers: { range: `bytes=${SIZE - 1000}-` } });
  expect(tail.status).toBe(206);
  expect(Buffer.from(await tail.arrayBuffer()).equals(resultBytes(row.upstream_id!, 'video', SIZE - 1000, 1000))).toBe(
    true,
  );
});
