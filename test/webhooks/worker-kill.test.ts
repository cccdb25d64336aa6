// Worker processes and webhooks: a worker killed with SIGKILL while the receiver holds its request
// loses nothing — the next worker takes the job over once its lock lapses and delivers the same
// event (the same webhook-id); and the development setting is refused in production at start.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../console/helpers.js';
import { ROOT } from '../support/processes.js';
import { spawnWorker, workerEnv, writeTaskCatalogFile, type WorkerProcess } from '../support/task-gateway.js';
import {
  createEndpoint,
  owner,
  startReceiver,
  startWebhookGateway,
  waitDelivery,
  type Receiver,
  type WebhookGateway,
} from './support.js';

let gw: WebhookGateway;
let receiver: Receiver;
let catalog: { file: string; remove(): Promise<void> };
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  // Deliveries only in the worker processes this test starts and kills.
  gw = await startWebhookGateway({ workers: false });
  receiver = await startReceiver();
  catalog = await writeTaskCatalogFile(gw.sim.url);
});
afterAll(async () => {
  for (const w of workers) await w.stop('SIGKILL');
  await receiver?.close();
  await gw?.close();
  await catalog?.remove();
});

describe('a worker killed mid-delivery', () => {
  it('loses nothing: the next worker delivers the same event, with the same webhook-id', async () => {
    const env = {
      ...workerEnv(gw, catalog.file),
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
      WEBHOOK_RETRY_BASE_MS: '50',
      // A dead worker's job is taken up within seconds, not BullMQ's default 30 s.
      WORKER_LOCK_MS: '2000',
      WORKER_STALLED_INTERVAL_MS: '1000',
    };
    const first = await spawnWorker(env, 'webhook');
    workers.push(first);
    const a = await owner(gw);
    const endpoint = (await createEndpoint(gw, a.token, { url: `${receiver.origin}/hook`, events: ['webhook.test'] }))
      .json.data;
    receiver.answer('hold');
    const delivery = (await api(gw, 'POST', `/webhooks/${endpoint.id}/test`, { token: a.token })).json.data;
    const [held] = await receiver.waitFor(1);

    await first.stop('SIGKILL');
    const killedAt = performance.now();
    workers.push(await spawnWorker(env, 'webhook'));
    const requests = await receiver.waitFor(2, () => true, 20_000);
    console.log(`redelivered ${Math.round(requests[1]!.at - killedAt)} ms after the kill`);

    expect(requests[1]!.headers['webhook-id']).toBe(held!.headers['webhook-id']);
    expect(requests[1]!.body).toBe(held!.body);
    expect(JSON.parse(held!.body).id).toBe(delivery.event_id);
    const view = await waitDelivery(gw, a.token, endpoint.id, (d) => d.status === 'delivered');
    // Two attempts started; the killed one had no answer to record.
    expect(view.attempt_count).toBe(2);
    expect(view.attempts.map((t: { status_code: number }) => t.status_code)).toEqual([204]);
  });
});

describe('WEBHOOK_ALLOW_INSECURE_URLS', () => {
  it('stops a production process at start, naming the setting', async () => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/bin/worker.js')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        ...workerEnv(gw, catalog.file),
        NODE_ENV: 'production',
        WEBHOOK_ALLOW_INSECURE_URLS: 'true',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/^\s*WEBHOOK_ALLOW_INSECURE_URLS: .*refused when NODE_ENV=production$/m);
  });
});
