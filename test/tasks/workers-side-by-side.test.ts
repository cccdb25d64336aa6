import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, ROOT } from '../support/processes.js';
import {
  createVideo,
  startTaskGateway,
  videoBody,
  waitSettled,
  workerEnv,
  writeTaskCatalogFile,
  type TaskGateway,
} from '../support/task-gateway.js';

// Two `npm run worker` on one host with the same WORKER_METRICS_PORT: the second takes the next
// free port for /metrics instead of dying with EADDRINUSE, and both serve jobs.
let gw: TaskGateway;
let removeCatalog: () => Promise<void>;
const children: ChildProcess[] = [];
let port = 0;
/** The port each worker says it serves /metrics on (the next free one may not be port + 1 on a busy machine). */
const ports: number[] = [];

beforeAll(async () => {
  gw = await startTaskGateway({ workers: false });
  const catalog = await writeTaskCatalogFile(gw.sim.url);
  removeCatalog = catalog.remove;
  port = await freePort();
  const env = {
    ...workerEnv(gw, catalog.file),
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    WORKER_METRICS_PORT: String(port),
    LOG_LEVEL: 'info',
  };
  for (let i = 0; i < 2; i++) {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/bin/worker.js')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      const said = /"port":(\d+)/.exec(output);
      if (said && ports[i] === undefined) ports[i] = Number(said[1]);
    });
    // The first must be listening before the second starts, so the second really finds the port taken.
    await waitFor(
      async () =>
        ports[i] !== undefined &&
        (await fetch(`http://127.0.0.1:${ports[i]}/healthz`).then(
          (r) => r.ok,
          () => false,
        )),
    );
  }
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await removeCatalog?.();
  await gw?.close();
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('workers side by side on one host', () => {
  it('the second worker serves /metrics on the next free port, both stay up, and tasks complete', async () => {
    expect(children.every((c) => c.exitCode === null)).toBe(true);
    expect(ports[0]).toBe(port);
    expect(ports[1]).toBeGreaterThan(port);
    const metrics = await fetch(`http://127.0.0.1:${ports[1]}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('# TYPE');
    const { key } = await gw.account({ balance: 10_000_000 });
    const created = await createVideo(gw, key, videoBody('side by side'));
    expect((await waitSettled(gw, (created.json as { id: string }).id)).status).toBe('succeeded');
  });
});
