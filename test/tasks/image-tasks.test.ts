// Asynchronous image generation: the same job machinery as videos, n results mirrored, charged per
// image on success only.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultBytes } from '../../tools/upstream-sim/index.js';
import { postJson } from '../support/limits.js';
import { usersBalance } from '../support/money.js';
import {
  chargeRows,
  getJson,
  IMAGE_MODEL,
  IMAGE_PER_IMAGE,
  IMAGE_UPSTREAM,
  readTask,
  startTaskGateway,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway();
});
afterAll(() => gw?.close());

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('POST /v1/images/tasks', () => {
  it('ends succeeded with n stored_urls serving the exact images, charged per image once', async () => {
    const funds = 1_000_000;
    const a = await gw.account({ balance: funds });
    const n = 3;
    const created = await postJson(gw, '/v1/images/tasks', a.key, {
      model: IMAGE_MODEL,
      prompt: '[[sim:resultBytes=20000]] three foxes',
      n,
      size: '1024x1024',
    });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const id = created.json.id as string;
    expect(id).toMatch(/^imgtask_/);
    expect(created.json).toMatchObject({
      object: 'image.task',
      status: 'queued',
      model: IMAGE_MODEL,
      n,
      size: '1024x1024',
    });

    const row = await waitSettled(gw, id);
    expect(row.status).toBe('succeeded');
    // The upstream made images: the simulator's rule is an upstream model starting with "img".
    const upstream = gw.sim.tasks().find((t) => t.id === row.upstream_id)!;
    expect(upstream).toMatchObject({ kind: 'image', model: IMAGE_UPSTREAM, status: 'succeeded' });

    const view = (await readTask(gw, a.key, id, 'images/tasks')).json;
    const price = n * IMAGE_PER_IMAGE['1024x1024']!;
    expect(view).toMatchObject({ id, object: 'image.task', status: 'succeeded', charged_micro_usd: price });
    const stored = view.stored_urls as string[];
    expect(stored).toHaveLength(n);
    expect(view.stored_url).toBe(stored[0]);
    expect(view.provider_urls).toEqual(upstream.resultUrls);
    for (const [i, url] of stored.entries()) {
      expect(url.startsWith(`${gw.url}/v1/files/`)).toBe(true);
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      const body = Buffer.from(await res.arrayBuffer());
      expect(sha(body)).toBe(sha(resultBytes(`${row.upstream_id}.${i}`, 'image', 0, 20_000)));
    }

    const charges = await chargeRows(gw, a.userId);
    expect(charges.map((c) => [c.request_id, c.amount_micro_usd])).toEqual([[id, -price]]);
    expect(await usersBalance(gw.services.db, a.userId)).toBe(funds - price);

    // Listed under image tasks, not under videos.
    const list = await getJson(`${gw.url}/v1/images/tasks`, a.key);
    expect((list.json.data as { id: string }[]).map((t) => t.id)).toEqual([id]);
    expect((await getJson(`${gw.url}/v1/videos`, a.key)).json.data).toEqual([]);
    expect((await readTask(gw, a.key, id, 'videos')).status).toBe(404);
  });

  it('the price follows the size (per-image price of that size)', async () => {
    const a = await gw.account({ balance: 1_000_000 });
    const created = await postJson(gw, '/v1/images/tasks', a.key, {
      model: IMAGE_MODEL,
      prompt: 'small',
      n: 2,
      size: '512x512',
    });
    expect(created.status).toBe(200);
    const row = await waitSettled(gw, created.json.id as string);
    expect(row.status).toBe('succeeded');
    expect((await chargeRows(gw, a.userId)).map((c) => c.amount_micro_usd)).toEqual([-2 * IMAGE_PER_IMAGE['512x512']!]);
  });

  it('a failed image task costs nothing and can be cancelled like a video', async () => {
    const funds = 500_000;
    const a = await gw.account({ balance: funds });
    const failed = await postJson(gw, '/v1/images/tasks', a.key, {
      model: IMAGE_MODEL,
      prompt: '[[sim:taskFault=fail]] doomed',
      n: 2,
    });
    const running = await postJson(gw, '/v1/images/tasks', a.key, {
      model: IMAGE_MODEL,
      prompt: '[[sim:taskRunMs=60000]] slow',
      n: 1,
    });
    expect(failed.status).toBe(200);
    expect(running.status).toBe(200);
    const f = await waitSettled(gw, failed.json.id as string);
    expect(f.status).toBe('failed');
    const cancel = await postJson(gw, `/v1/images/tasks/${running.json.id}/cancel`, a.key, {});
    expect(cancel.status).toBe(200);
    expect(cancel.json.status).toBe('cancelled');
    const c = await waitSettled(gw, running.json.id as string);
    expect(c.status).toBe('cancelled');
    expect(await chargeRows(gw, a.userId)).toEqual([]);
    expect(await usersBalance(gw.services.db, a.userId)).toBe(funds);
  });
});
